"""The web layer: templating (full page, htmx block or JSON), assets, Markdown, the request's language,
errors shown to users, form reading, signing keys, request dependencies, and what every request goes
through before a route (same-origin posts, the client's address).

May import every area below it; lower layers (engine, snippets, sandbox, db) never import it.
"""
