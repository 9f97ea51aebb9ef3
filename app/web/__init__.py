"""The web layer: templating (full page, htmx block or JSON), assets, Markdown, the request's language,
errors shown to users, form reading, signing keys and request dependencies.

May import every area below it; lower layers (engine, snippets, sandbox, db) never import it.
"""
