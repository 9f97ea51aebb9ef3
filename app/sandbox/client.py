"""The web app's side: start the fork server, send it jobs, bound the load, survive its death."""
import asyncio
import os
import sys
from pathlib import Path

from . import framing
from .connection import Connection, ServerLost
from .types import Job, Limits, SandboxBusy, SandboxUnavailable, Verdict

MAX_JOB_CHARS = 1 << 20
REPLY_MARGIN = 5.0  # beyond the wall limit, before the server counts as hung
FIRST_START_TIMEOUT = 300.0  # importing torch from a cold disk can take minutes
RESTART_TIMEOUT = 30.0  # later the files are cached; a run() waits at most this for a restart


class Sandbox:
    def __init__(self, limits: Limits = Limits(), workers: int | None = None, queue: int = 32,
                 data_dirs: tuple[Path, ...] = (), *, uid_base: int | None = None, namespaces: bool = True,
                 python: str | None = None):
        """uid_base: job processes run as uid_base + slot when root (default: a free block of 64
        from 60000 on, so servers of several web workers never share uids); namespaces=False skips
        every namespace (for hosts where they misbehave); python: interpreter for the server."""
        self.limits, self.queue = limits, queue
        self.workers = workers or os.cpu_count() or 1
        self.data_dirs = tuple(Path(p).resolve() for p in data_dirs)
        self.uid_base, self.namespaces, self.python = uid_base, namespaces, python or sys.executable
        self._conn: Connection | None = None
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(self.workers)
        self._admitted = 0
        self._closed = False
        self._started_once = False

    async def start(self) -> None:
        self._closed = False
        await self._connection()

    async def close(self) -> None:
        self._closed = True
        async with self._lock:
            if self._conn is not None:
                await self._conn.close()
                self._conn = None

    def protections(self) -> dict[str, bool]:
        return dict(self._conn.ready["protections"]) if self._conn else {}

    async def status(self) -> dict:
        """Pids and memory of the server tree (for the health page, tests and benchmarks)."""
        conn = await self._connection()
        return (await conn.ask("status", REPLY_MARGIN))["info"]

    async def run(self, job: Job) -> Verdict:
        _validate(job)
        if self._admitted >= self.workers + self.queue:
            raise SandboxBusy("all workers busy and the queue is full")
        self._admitted += 1
        try:
            async with self._slots:
                for _ in range(2):  # a dead or hung server is replaced and the job retried once
                    conn = await self._connection()
                    try:
                        reply = await conn.ask("run", self.limits.wall_seconds + REPLY_MARGIN,
                                               job=job.as_dict())
                        return Verdict.from_dict(reply["verdict"])
                    except ServerLost:
                        continue
                raise SandboxUnavailable("the fork server was lost twice while running this job")
        finally:
            self._admitted -= 1

    async def _connection(self) -> Connection:
        async with self._lock:
            if self._conn is not None and self._conn.alive:
                return self._conn
            if self._closed:
                raise SandboxUnavailable("the sandbox is closed")
            if self._conn is not None:
                await self._conn.close()
                self._conn = None
            config = {"limits": self.limits.as_dict(), "workers": self.workers,
                      "uid_base": self.uid_base, "namespaces": self.namespaces,
                      "data_dirs": [str(p) for p in self.data_dirs]}
            try:
                timeout = RESTART_TIMEOUT if self._started_once else FIRST_START_TIMEOUT
                self._conn = await Connection.open(config, self.python, timeout)
                self._started_once = True
            except (OSError, RuntimeError, EOFError, asyncio.TimeoutError, asyncio.IncompleteReadError,
                    framing.FrameError) as exc:
                raise SandboxUnavailable(f"could not start the fork server: {exc}") from exc
            return self._conn


def _validate(job: Job) -> None:
    if not all(isinstance(n, str) and isinstance(s, str) for n, s in job.parts):
        raise TypeError("Job.parts must be (name, source) string pairs")
    if sum(len(s) for _, s in job.parts) > MAX_JOB_CHARS:
        raise ValueError("job sources too large")
