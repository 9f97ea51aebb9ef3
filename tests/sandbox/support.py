"""Helpers shared by the sandbox tests (and usable by the HTTP-level ones)."""

import asyncio
import os
import tempfile
import time
from pathlib import Path

from app.sandbox import Job, Limits, Sandbox
from app.sandbox.status import descendants

TEST_LIMITS = Limits(cpu_seconds=1, wall_seconds=2, memory_bytes=256 << 20)
WORKERS = 2
SECRET = "TOPSECRET"


def job(code: str, setup: str = "", check: str = "") -> Job:
    return Job(parts=(("setup", setup), ("code", code), ("check", check)))


def _uids(pid: int) -> set[int]:
    try:
        with open(f"/proc/{pid}/status") as f:
            line = next(row for row in f if row.startswith("Uid:"))
    except (OSError, StopIteration):
        return set()
    return {int(x) for x in line.split()[1:]}


class Runner:
    """Synchronous access to a Sandbox for tests."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sandbox: Sandbox, data_dir: Path):
        self.loop, self.sandbox, self.data_dir = loop, sandbox, data_dir

    def __call__(self, coro):
        return self.loop.run_until_complete(coro)

    def run(self, code: str, setup: str = "", check: str = ""):
        return self(self.sandbox.run(job(code, setup, check)))

    def settled_status(self, timeout: float = 10.0) -> dict:
        return settled_status(lambda: self(self.sandbox.status()), self.sandbox.workers, timeout)

    @staticmethod
    def job_uids(status: dict) -> range:
        return job_uids(status)

    def leftover_processes(self) -> list[int]:
        return leftover_processes(self.settled_status())


def settled_status(get_status, workers: int, timeout: float = 10.0) -> dict:
    """Status once no job runs or is still being reaped and the pool of ready job processes is full again."""
    end = time.monotonic() + timeout
    while True:
        status = get_status()
        idle = not status["running"] and not status["starting"] and not status["ending"]
        if (idle and len(status["ready_pids"]) >= workers) or time.monotonic() > end:
            return status
        time.sleep(0.02)


def job_uids(status: dict) -> range:
    return range(status["uid_base"], status["uid_base"] + 64)


def leftover_processes(status: dict) -> list[int]:
    """Processes of any job, other than the idle ready ones (with no children), given a settled status."""
    keep = {status["server_pid"], *status["zygote_pids"], *status["ready_pids"]}
    tree = set(descendants([status["zygote_pid"]])) - keep
    slots = set(job_uids(status))
    by_uid = {int(p) for p in os.listdir("/proc") if p.isdigit() and _uids(int(p)) & slots}
    return sorted(tree | (by_uid - keep))


def world_writable_dir(prefix: str) -> Path:
    """Outside /tmp (which jobs see a private copy of), reachable by any uid."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
