"""Alembic's entry point: run with the connection the app (or `alembic`) hands over."""

from alembic import context
from sqlalchemy import create_engine

from app.db.tables import metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _migrate(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:  # `alembic upgrade head` from a shell: the app's own settings name the database
        from app.settings import Settings

        url = Settings().sqlalchemy_url
    with create_engine(url).begin() as conn:
        _migrate(conn)


def _migrate(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run()
