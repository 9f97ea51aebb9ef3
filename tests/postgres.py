"""A real PostgreSQL server for the tests: Debian's binaries, `initdb` in a temporary dir, on a
free port, run as an unprivileged user (initdb refuses root), stopped at the end."""

import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from tests.servers import free_port


def pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


class PostgresServer:
    def __init__(self):
        self.bin = pg_bin()
        self.root = Path(tempfile.mkdtemp(prefix="codecloze-pg-"))
        self.port = free_port()
        self.user = "postgres" if _exists("postgres") else "nobody"

    def __enter__(self) -> "PostgresServer":
        data, sockets = self.root / "data", self.root / "sock"
        sockets.mkdir()
        account = pwd.getpwnam(self.user)
        for path in (self.root, sockets):
            os.chown(path, account.pw_uid, account.pw_gid)
        self._as_user(
            [
                self.bin / "initdb",
                "-D",
                data,
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        )
        self._as_user(
            [
                self.bin / "pg_ctl",
                "-D",
                data,
                "-l",
                self.root / "log",
                "-w",
                "-t",
                "60",
                "-o",
                f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
                "start",
            ]
        )
        return self

    def __exit__(self, *exc) -> None:
        self._as_user([self.bin / "pg_ctl", "-D", self.root / "data", "-m", "immediate", "-w", "stop"], check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def _as_user(self, argv, check: bool = True) -> None:
        argv = [str(a) for a in argv]
        if os.getuid() == 0:
            argv = ["runuser", "-u", self.user, "--", *argv]
        subprocess.run(argv, check=check, capture_output=True, cwd=self.root, timeout=120)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str | None = None) -> str:
        """A fresh database, each test its own: empty, or a copy of `template` (a database's name)."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def freeze(self, name: str) -> None:
        """A database copied from, never connected to again (autovacuum's visits would stop a copy)."""
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))


def _exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def wait_ready(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url.replace("postgresql+psycopg", "postgresql")).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
