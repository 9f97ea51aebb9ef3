"""Teaching: the catalog of snippets (bundled and uploaded, drafts and versions), publishing (uploads,
edits, a course at once with its preview, the filled-in example file the upload page offers), check-strength analyses and their pages, assignments, teacher sign-in, and
the `codecloze` command line.

May import engine, snippets, sandbox, db, memory, classes, i18n and web; never routes.
"""
