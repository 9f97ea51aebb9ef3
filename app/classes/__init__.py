"""Classes and what teachers see of them: class codes, per-class counters, alternatives for token match.

May import engine, snippets, db, memory and i18n; never learn, teach, web or routes (a bad query
parameter is a UserError of app/errors.py, which the web layer maps to its status).
"""
