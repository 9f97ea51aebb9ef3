"""Schema changes go through migrations: an empty database, one made before migrations existed,
and an older install whose snippets lived in files all come up at the newest schema."""

import sqlite3
import subprocess
import sys

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect

from app.db import migrate
from app.main import create_app
from app.settings import Settings
from app.snippets.parse import version_of
from tests.helpers import attempts_of
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.server

BEARER = {"authorization": f"Bearer {TOKEN}"}


def settings_for(data_dir) -> Settings:
    return Settings(data_dir=data_dir, execution=False, use_cdn=False, teacher_token=TOKEN)


def test_an_empty_database_is_brought_to_head(tmp_path):
    with SiteClient(create_app(settings_for(tmp_path / "d"))):
        pass
    engine = create_engine(f"sqlite:///{tmp_path / 'd' / 'codecloze.db'}")
    assert migrate.current(engine) == migrate.head()
    assert {"attempts", "responses", "snippets", "snippet_versions"} <= set(inspect(engine).get_table_names())


def test_every_migration_goes_down_and_up_again(tmp_path):
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    engine = create_engine(url)
    migrate.upgrade(engine)
    with engine.begin() as conn:
        config = migrate.alembic_config()
        config.attributes["connection"] = conn
        command.downgrade(config, "base")
        command.upgrade(config, "head")
    assert migrate.current(engine) == migrate.head()


def old_install(data_dir, confirmed: str, unconfirmed: str) -> None:
    """A data dir as the server wrote it before snippets moved into the database: tables made
    without migrations, the text in files, and an edit that was written but never confirmed."""
    data_dir.mkdir(parents=True)
    db = sqlite3.connect(data_dir / "codecloze.db")
    db.executescript("""
        CREATE TABLE attempts (id BIGINT PRIMARY KEY, learner VARCHAR(64) NOT NULL, snippet_id VARCHAR(64) NOT NULL,
            version VARCHAR(12) NOT NULL, mode VARCHAR(8) NOT NULL, rate INTEGER, seed INTEGER,
            correct INTEGER NOT NULL, total INTEGER NOT NULL, outcome VARCHAR(16), results JSON NOT NULL,
            created_at DATETIME NOT NULL);
        CREATE TABLE responses (attempt_id BIGINT NOT NULL, question INTEGER NOT NULL, text TEXT NOT NULL,
            rating VARCHAR(8));
        CREATE TABLE snippets (id VARCHAR(64) PRIMARY KEY, version VARCHAR(12) NOT NULL, published BOOLEAN NOT NULL,
            updated_at DATETIME NOT NULL);
    """)
    db.execute("INSERT INTO snippets VALUES ('square', ?, 1, '2026-01-01 00:00:00')", (version_of(confirmed),))
    db.execute(
        "INSERT INTO attempts VALUES (5, 'learner0000000000', 'square', ?, 'fixed', NULL, NULL, 1, 1,"
        " NULL, '{\"c0\": true}', '2026-01-01 00:00:00')",
        (version_of(confirmed),),
    )
    db.commit()
    db.close()
    (data_dir / "versions" / "square").mkdir(parents=True)
    (data_dir / "versions" / "square" / f"{version_of(confirmed)}.md").write_text(confirmed)
    (data_dir / "snippets").mkdir()
    (data_dir / "snippets" / "square.md").write_text(unconfirmed)  # the file was written, the row never was
    (data_dir / "snippets" / ".square.md.abc.tmp").write_text("half")
    (data_dir / "snippets" / "never.md").write_text(snippet_text("Never confirmed"))


def test_an_older_install_keeps_what_it_confirmed_and_drops_what_it_did_not(tmp_path):
    data_dir = tmp_path / "d"
    old_install(data_dir, snippet_text("Confirmed"), snippet_text("Refused edit"))
    with SiteClient(create_app(settings_for(data_dir))) as client:
        assert "Confirmed" in client.get("/s/square").text  # published, at the version the index confirmed
        assert client.get("/api/snippets/never", headers=BEARER).status_code == 404
        assert not (data_dir / "snippets" / ".square.md.abc.tmp").exists()
        assert attempts_of(client.app.state.store, "learner0000000000")[0]["id"] == 5
    engine = create_engine(f"sqlite:///{data_dir / 'codecloze.db'}")
    assert migrate.current(engine) == migrate.head()
    with SiteClient(create_app(settings_for(data_dir))) as again:  # a second start changes nothing
        assert "Confirmed" in again.get("/s/square").text


def test_head_names_the_newest_migration():
    assert migrate.HEAD == migrate.head()


def test_a_start_on_a_database_at_head_does_not_load_alembic(tmp_path):
    """Alembic (~10 MiB of the web process) is loaded only to migrate: the first start on an
    empty database needs it, the next start on the same database does not."""
    probe = (
        "import sys; from app.db.store import Store; Store(sys.argv[1]); print('alembic' in sys.modules, flush=True)"
    )
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    run = lambda: subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, check=True)
    assert run().stdout.split() == ["True"]
    assert run().stdout.split() == ["False"]
    assert migrate.current(create_engine(url)) == migrate.head()
