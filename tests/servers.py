"""Real servers for the tests and the benchmarks: a free port, `uvicorn app.main:app` in a subprocess
configured through its environment, and a private copy of the bundled snippets."""

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import httpx

from app.settings import PROJECT_DIR

SNIPPETS = PROJECT_DIR / "snippets"


def copy_snippets(folder: Path) -> Path:
    """A private copy of the bundled snippets that a test may change."""
    target = folder / "snippets"
    shutil.copytree(SNIPPETS, target)
    return target


# What ./scripts/serve gives uvicorn besides the address (test_guarded_http checks they agree):
# only the app reads X-Forwarded-For; request deadlines and a connection cap per address.
SERVE_FLAGS = ("--no-proxy-headers", "--http", "app.web.guarded_http:GuardedHttp")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    data_dir: Path,
    output=None,
    web_workers: int = 1,
    port: int | None = None,
    tls: tuple[Path, Path] | None = None,
    **env: str | None,
):
    """`uvicorn app.main:app` in a subprocess as ./scripts/serve starts it, configured only through the environment
    (a setting given as None is left unset, so the app's default applies). Its output goes to a
    file, or to `output` (subprocess.PIPE for a test that reads it, and so keeps it flowing).
    web_workers > 1: that many uvicorn workers (they need a shared database and secret key).
    `port`: where to listen (a free one when None), e.g. the address a stopped server had.
    `tls`: (certificate, key) files to serve HTTPS with (tests.tls makes a self-signed pair)."""
    port = port or free_port()
    # No CDN: a parser-blocking script waiting on DNS for an unreachable host makes page loads
    # as slow as the resolver (CDN mode and its fallback have their own test in test_assets).
    environ = {**os.environ, "CODECLOZE_DATA_DIR": str(data_dir), "CODECLOZE_USE_CDN": "false", **env}
    environ = {name: value for name, value in environ.items() if value is not None}
    # The server's output goes to a file: a pipe nobody reads fills with its access log after a few
    # hundred requests, and then every write, so every request, blocks the server for good.
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--port",
            str(port),
            "--workers",
            str(web_workers),
            *SERVE_FLAGS,
            *(("--ssl-certfile", str(tls[0]), "--ssl-keyfile", str(tls[1])) if tls else ()),
        ],
        cwd=PROJECT_DIR,
        env=environ,
        stdout=output or log,
        stderr=subprocess.STDOUT,
    )
    with log:  # the server holds its own descriptor
        return proc, _started(proc, port, log, "https" if tls else "http")


def _started(proc, port: int, log, scheme: str = "http") -> str:
    """The server's URL once it answers; what it printed if it stopped."""
    url = f"{scheme}://127.0.0.1:{port}"
    unverified = ssl._create_unverified_context()  # a test's self-signed certificate
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1, context=unverified)
            return url
        except OSError:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError((proc.stdout or log).read().decode()) from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


@contextlib.contextmanager
def running_server(data_dir: Path, web_workers: int = 1, tls: tuple[Path, Path] | None = None, **env: str | None):
    """`start_server`, stopped when the block ends; yields its URL."""
    proc, url = start_server(data_dir, web_workers=web_workers, tls=tls, **env)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def slow_answer_server(tmp_path_factory, name: str, **env: str):
    """`running_server` with 2 sandbox workers and SLOW_SNIPPET ("slow-answer", a blank whose
    answer may sleep) beside the bundled snippets: the attack tests' honest and hostile jobs."""
    from tests.helpers import SLOW_SNIPPET

    snippets = copy_snippets(tmp_path_factory.mktemp("snips"))
    (snippets / "slow-answer.md").write_text(SLOW_SNIPPET, encoding="utf-8")
    settings = {"CODECLOZE_SNIPPETS_DIR": str(snippets), "CODECLOZE_WORKERS": "2", **env}
    with running_server(tmp_path_factory.mktemp(name), **settings) as url:
        yield url


def client_from(url: str, source: str) -> httpx.Client:
    """A JSON client of the server whose requests come from the local address `source`."""
    return httpx.Client(
        base_url=url,
        timeout=60,
        headers={"origin": url, "accept": "application/json"},
        transport=httpx.HTTPTransport(local_address=source),
    )
