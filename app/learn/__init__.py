"""Learning: drills and exercises (masks chosen from a snippet), grading a submission (score, splice,
run, record) and the feedback it shows.

May import engine, snippets, sandbox, db, memory, classes, i18n and web.errors; never routes.
"""
