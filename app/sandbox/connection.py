"""One fork server process and the socket to it, from the web app's side."""

import asyncio
import itertools
import os
import signal
import socket
from pathlib import Path

from . import framing

_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from app.sandbox.server import main; main(int(sys.argv[2]))"
# The server starts from a clean environment: nothing of the web app's (secrets included).
_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class ServerLost(Exception):
    """The fork server died or stopped answering; it gets replaced."""


class Connection:
    """One fork server process and the socket to it."""

    def __init__(self, proc, reader, writer, ready: dict):
        self.proc, self.reader, self.writer, self.ready = proc, reader, writer, ready
        self.waiting: dict[int, asyncio.Future] = {}
        self.ids = itertools.count(1)
        self.alive = True
        self.task = asyncio.get_running_loop().create_task(self._read_replies())

    @classmethod
    async def open(cls, config: dict, python: str, timeout: float) -> "Connection":
        ours, theirs = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                python,
                "-I",
                "-B",
                "-c",
                _BOOT,
                _ROOT,
                str(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                env=_ENV,
                cwd="/",
                start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
            )
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        writer.write(framing.encode(config))
        try:
            ready = await asyncio.wait_for(framing.read_frame(reader), timeout)
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
                    future.set_exception(ServerLost())

    async def ask(self, kind: str, timeout: float, **fields) -> dict:
        """Sends {kind: id, ...fields}; the server's reply carries the same id."""
        if not self.alive:
            raise ServerLost()
        key = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[key] = future
        try:
            self.writer.write(framing.encode({kind: key, **fields}))
            return await asyncio.wait_for(future, timeout)
        except (TimeoutError, ConnectionError):
            self.alive = False  # hung or gone: it gets replaced
            raise ServerLost() from None
        except asyncio.CancelledError:
            # The caller went away (e.g. the browser disconnected): stop the job too, so that
            # abandoned jobs never pile up beyond the bound on jobs in flight.
            if self.alive and kind == "run":
                self.writer.write(framing.encode({"cancel": key}))
            raise
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
    except TimeoutError:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await proc.wait()
