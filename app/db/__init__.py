"""The database: tables, migrations and the group-commit writer behind `app.db.store`."""
