"""Teaching: the catalog of snippets (bundled and uploaded, drafts and versions), uploads and edits,
check-strength runs and teacher sign-in.

May import engine, snippets, sandbox, db, classes, i18n and web; never routes.
"""
