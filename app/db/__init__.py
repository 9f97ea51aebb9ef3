"""The database: tables, migrations, the group-commit writer, snippet rows and `app.db.store` (attempts,
with learner memory and class counters written in the attempt's transaction).

A lower layer: never imports learn, teach, web or routes.
"""
