import contextlib
import os
import shutil
import tempfile
from pathlib import Path

# Importing app.main builds the default app; keep its data out of the working tree.
os.environ.setdefault("CODECLOZE_DATA_DIR", tempfile.mkdtemp(prefix="codecloze-import-"))
os.environ.setdefault("CODECLOZE_LOG_LEVEL", "WARNING")  # one line per submission is for operators, not test output

import pytest

from app.main import create_app
from app.settings import PROJECT_DIR, Settings
from tests.site_client import SiteClient

SNIPPETS = PROJECT_DIR / "snippets"
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", execution=False, use_cdn=False)


@pytest.fixture
def client(settings: Settings):
    with SiteClient(create_app(settings)) as test_client:
        yield test_client


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


def copy_snippets(folder: Path) -> Path:
    """A private copy of the bundled snippets that a test may change."""
    target = folder / "snippets"
    shutil.copytree(SNIPPETS, target)
    return target


@pytest.fixture
def snippets_dir(tmp_path: Path) -> Path:
    return copy_snippets(tmp_path)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, output=None, **env: str | None):
    """`uvicorn app.main:app` in a subprocess, configured only through the environment
    (a setting given as None is left unset, so the app's default applies). Its output goes to a
    file, or to `output` (subprocess.PIPE for a test that reads it, and so keeps it flowing)."""
    import subprocess
    import sys

    port = free_port()
    # No CDN: a parser-blocking script waiting on DNS for an unreachable host makes page loads
    # as slow as the resolver (CDN mode and its fallback have their own test in test_assets).
    environ = {**os.environ, "CODECLOZE_DATA_DIR": str(data_dir), "CODECLOZE_USE_CDN": "false", **env}
    environ = {name: value for name, value in environ.items() if value is not None}
    # The server's output goes to a file: a pipe nobody reads fills with its access log after a few
    # hundred requests, and then every write, so every request, blocks the server for good.
    log = tempfile.TemporaryFile()
    # --no-proxy-headers: uvicorn would take X-Forwarded-For from any local peer (the app reads it itself)
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port), "--no-proxy-headers"],
        cwd=PROJECT_DIR,
        env=environ,
        stdout=output or log,
        stderr=subprocess.STDOUT,
    )
    with log:  # the server holds its own descriptor
        return proc, _started(proc, port, log)


def _started(proc, port: int, log) -> str:
    """The server's URL once it answers; what it printed if it stopped."""
    import time
    import urllib.request

    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return url
        except OSError:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError((proc.stdout or log).read().decode()) from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


@contextlib.contextmanager
def running_server(data_dir: Path, **env: str | None):
    """`start_server`, stopped when the block ends; yields its URL."""
    proc, url = start_server(data_dir, **env)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


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


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright's sync API leaves an event loop running in the main
    thread for the rest of the session, which later `asyncio.run` calls would trip over."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


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


@pytest.fixture
def second_database_url(request, database_url, tmp_path):
    """Another fresh database of the same kind as `database_url`."""
    if database_url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'second.db'}"
    return request.getfixturevalue("postgres").new_database()
