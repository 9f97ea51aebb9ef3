import contextlib
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

# The bundled app (`main_app`) is built from the environment: keep its data out of the working tree.
os.environ.setdefault("CODECLOZE_DATA_DIR", tempfile.mkdtemp(prefix="codecloze-import-"))
os.environ.setdefault("CODECLOZE_LOG_LEVEL", "WARNING")  # one line per submission is for operators, not test output

import pytest

from app.main import create_app
from app.settings import PROJECT_DIR, Settings
from tests.servers import copy_snippets, running_server, start_server
from tests.site_client import SiteClient

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def template_database(tmp_path_factory) -> Path:
    """An SQLite database migrated and holding the bundled snippets and their analyses, made once
    per run (per xdist worker): each test's app starts from a copy, not from migrations."""
    data = tmp_path_factory.mktemp("template") / "data"
    create_app(Settings(data_dir=data, execution=False, use_cdn=False)).state.store.close()
    database = data / "codecloze.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the file that is copied
    return database


@pytest.fixture
def data_dir(tmp_path: Path, template_database: Path) -> Path:
    """A test's own data dir, its database a copy of the template (an app at start-up finds it current)."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copyfile(template_database, data / "codecloze.db")
    return data


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, execution=False, use_cdn=False)


@pytest.fixture
def client(settings: Settings):
    with SiteClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def teaching_app(tmp_path, migrated_database_url):
    """An app of its own with the teachers' token of tests/teach_helpers.py, on each database."""
    from tests.teach_helpers import TOKEN

    settings = Settings(
        data_dir=tmp_path / "data",
        execution=False,
        use_cdn=False,
        teacher_token=TOKEN,
        database_url=migrated_database_url,
    )
    app = create_app(settings)
    with SiteClient(app):  # its lifespan: the app's database and background work start and stop with it
        yield app


@pytest.fixture(scope="module")
def running_client(tmp_path_factory):
    """An app with the sandbox running, shared by a module's tests (starting it costs ~1 s)."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("run-data"), use_cdn=False, cpu_seconds=2, wall_seconds=4)
    with SiteClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("browser tests need Debian's chromium; .ci/run installs it")
        pytest.skip("Debian chromium not installed (apt-get install chromium fonts-noto-cjk)")
    return CHROMIUM


@pytest.fixture
def snippets_dir(tmp_path: Path) -> Path:
    return copy_snippets(tmp_path)


@pytest.fixture(scope="module")
def teacher_server(tmp_path_factory):
    """A served app of its own (the sandbox on) with the teachers' token of tests/teach_helpers.py."""
    from tests.teach_helpers import TOKEN

    with running_server(tmp_path_factory.mktemp("served"), CODECLOZE_TEACHER_TOKEN=TOKEN) as url:
        yield url


@pytest.fixture(scope="module")
def main_app():
    """The in-process app (the bundled snippets), to compute a mask's right answers."""
    from app.main import app

    return app


@pytest.fixture(scope="module")
def app(main_app):
    """The app whose answers a browser test types: the bundled one (a file with an app of its own overrides this)."""
    return main_app


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    proc, url = start_server(tmp_path_factory.mktemp("live-data"))
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium_path):
    # Never `playwright install`: Debian's chromium is the browser here.
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    # The course's learners: a Chinese browser (Chromium's own default asks for en-US, and the UI
    # follows Accept-Language). tests/test_browser_language.py sets its own.
    return {**browser_context_args, "locale": "zh-CN"}


@pytest.fixture(scope="session")
def artifacts() -> Path:
    folder = PROJECT_DIR / "test-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


TIERS = ("unit", "app", "server", "browser")
# Fixtures that start a real process (or share one a session started): only for the server tiers.
PROCESS_FIXTURES = {
    "postgres",
    "postgres_template",
    "database_url",
    "migrated_database_url",
    "live_server",
    "teacher_server",
    "running_client",
}


def tier(item) -> str | None:
    """A test's tier: its own mark, else its file's."""
    return next((mark.name for mark in item.iter_markers() if mark.name in TIERS), None)


def pytest_collection_modifyitems(config, items):
    """Every test has a tier, and one that fits its fixtures. Browser tests last: Playwright's sync
    API leaves an event loop running in the main thread for the rest of the session, which later
    `asyncio.run` calls would trip over."""
    wrong = [
        f"{item.nodeid}: {tier(item) or 'no tier'}"
        for item in items
        if tier(item) is None or (tier(item) in ("unit", "app") and PROCESS_FIXTURES & set(item.fixturenames))
    ]
    if wrong:
        raise pytest.UsageError("tests without a tier that fits them (pyproject's markers):\n" + "\n".join(wrong))
    items.sort(key=lambda item: tier(item) == "browser")


@pytest.fixture(autouse=True)
def _tier_kept(request, monkeypatch):
    """A unit or app test that starts a process belongs to the server tier: it fails saying so."""
    if tier(request.node) not in ("unit", "app"):
        yield
        return
    started = []

    def refuse(*args, **kwargs):
        started.append(args[:2])
        raise RuntimeError(f"a {tier(request.node)} test started a process: mark it server")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    yield
    if started:
        pytest.fail(f"a {tier(request.node)} test started a process ({started[0]}): mark it server")


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server for the whole run (started on first use)."""
    from tests.postgres import PostgresServer, pg_bin

    if pg_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL tests need Debian's postgresql; .ci/run installs it")
        pytest.skip("Debian postgresql not installed (apt-get install postgresql)")
    with PostgresServer() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    """A fresh, empty database of each kind the app supports."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'codecloze.db'}"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture(scope="session")
def postgres_template(postgres, tmp_path_factory) -> str:
    """`template_database` on PostgreSQL: a database migrated and holding the bundled snippets, made
    once per run (per xdist worker); returns its name, for CREATE DATABASE … TEMPLATE."""
    url = postgres.new_database()
    data = tmp_path_factory.mktemp("pg-template")
    create_app(Settings(data_dir=data, execution=False, use_cdn=False, database_url=url)).state.store.close()
    name = url.rsplit("/", 1)[1]
    postgres.freeze(name)
    return name


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated_database_url(request, tmp_path, template_database) -> str:
    """A database of each kind as an app leaves it at its first start: a copy of the run's template."""
    if request.param == "sqlite":
        database = tmp_path / "codecloze.db"
        shutil.copyfile(template_database, database)
        return f"sqlite:///{database}"
    return request.getfixturevalue("postgres").new_database(template=request.getfixturevalue("postgres_template"))


@pytest.fixture
def second_database_url(request, database_url, tmp_path):
    """Another fresh database of the same kind as `database_url`."""
    if database_url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'second.db'}"
    return request.getfixturevalue("postgres").new_database()
