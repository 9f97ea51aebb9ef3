"""Classes and what teachers see of them: class codes, per-class counters, alternatives for token match.

May import engine, snippets, db, memory and i18n; never learn, teach, web or routes (query parameters'
errors come back to the web layer as UserError from app.web.errors, the one exception).
"""
