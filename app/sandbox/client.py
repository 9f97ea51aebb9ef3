"""The web app's side: start the fork server, send it jobs, bound the load, survive its death."""
import asyncio
import itertools
import os
import signal
import socket
import sys
from pathlib import Path

from . import framing
from .types import Job, Limits, SandboxBusy, SandboxUnavailable, Verdict

MAX_JOB_CHARS = 1 << 20
REPLY_MARGIN = 5.0       # beyond the wall limit, before the server counts as hung
START_TIMEOUT = 300.0    # importing torch from a cold disk can take a while
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from app.sandbox.server import main; main(int(sys.argv[2]))"
_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1"}


class _ServerLost(Exception):
    pass


class _Connection:
    """One fork server process and the socket to it."""

    def __init__(self, proc, reader, writer, ready: dict):
        self.proc, self.reader, self.writer, self.ready = proc, reader, writer, ready
        self.waiting: dict[int, asyncio.Future] = {}
        self.ids = itertools.count(1)
        self.alive = True
        self.task = asyncio.get_running_loop().create_task(self._read_replies())

    @classmethod
    async def open(cls, config: dict, python: str) -> "_Connection":
        ours, theirs = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                python, "-I", "-B", "-c", _BOOT, _ROOT, str(theirs.fileno()),
                pass_fds=(theirs.fileno(),), env=_ENV, cwd="/", start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL)
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        writer.write(framing.encode(config))
        try:
            ready = await asyncio.wait_for(framing.read_frame(reader), START_TIMEOUT)
        except BaseException:
            await _end(proc)
            raise
        if "ready" not in ready:
            await _end(proc)
            raise RuntimeError(ready.get("error", ready))
        return cls(proc, reader, writer, ready["ready"])

    async def _read_replies(self) -> None:
        try:
            while True:
                frame = await framing.read_frame(self.reader)
                key = frame.get("done", frame.get("status"))
                future = self.waiting.get(key)
                if future is not None and not future.done():
                    future.set_result(frame)
        except (asyncio.IncompleteReadError, ConnectionError, framing.FrameError):
            pass
        finally:
            self.alive = False
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(_ServerLost())

    async def ask(self, kind: str, timeout: float, **fields) -> dict:
        """Sends {kind: id, ...fields}; the server's reply carries the same id."""
        if not self.alive:
            raise _ServerLost()
        key = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[key] = future
        try:
            self.writer.write(framing.encode({kind: key, **fields}))
            return await asyncio.wait_for(future, timeout)
        except (asyncio.TimeoutError, ConnectionError):
            self.alive = False  # hung or gone: it gets replaced
            raise _ServerLost() from None
        finally:
            self.waiting.pop(key, None)

    async def close(self) -> None:
        self.alive = False
        self.writer.close()
        await _end(self.proc)
        self.task.cancel()


async def _end(proc) -> None:
    """Closing the socket makes the server clean up and exit; a stuck one is killed."""
    try:
        await asyncio.wait_for(proc.wait(), 3.0)
    except asyncio.TimeoutError:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await proc.wait()


class Sandbox:
    def __init__(self, limits: Limits = Limits(), workers: int | None = None, queue: int = 32,
                 data_dirs: tuple[Path, ...] = (), *, uid_base: int = 60000, namespaces: bool = True,
                 python: str | None = None):
        """uid_base: job processes run as uid_base + slot (when root); namespaces=False skips
        every namespace (for hosts where they misbehave); python: interpreter for the server."""
        self.limits, self.queue = limits, queue
        self.workers = workers or os.cpu_count() or 1
        self.data_dirs = tuple(Path(p).resolve() for p in data_dirs)
        self.uid_base, self.namespaces, self.python = uid_base, namespaces, python or sys.executable
        self._conn: _Connection | None = None
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(self.workers)
        self._admitted = 0
        self._closed = False

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
                    except _ServerLost:
                        continue
                raise SandboxUnavailable("the fork server was lost twice while running this job")
        finally:
            self._admitted -= 1

    async def _connection(self) -> _Connection:
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
                self._conn = await _Connection.open(config, self.python)
            except (OSError, RuntimeError, EOFError, asyncio.TimeoutError, asyncio.IncompleteReadError,
                    framing.FrameError) as exc:
                raise SandboxUnavailable(f"could not start the fork server: {exc}") from exc
            return self._conn


def _validate(job: Job) -> None:
    if not all(isinstance(n, str) and isinstance(s, str) for n, s in job.parts):
        raise TypeError("Job.parts must be (name, source) string pairs")
    if sum(len(s) for _, s in job.parts) > MAX_JOB_CHARS:
        raise ValueError("job sources too large")
