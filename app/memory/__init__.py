"""Learner memory: who a learner is, what they practised, what they are forgetting, what is due,
and which blanks a review mask chooses.

May import engine, snippets, db and i18n; never learn, teach, web or routes.
"""
