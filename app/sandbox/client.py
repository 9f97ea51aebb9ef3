"""The web app's side: start the fork server, send it jobs, bound the load, survive its death."""

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import framing
from .background import OWNER as BACKGROUND
from .background import BackgroundBudget
from .budget import job_budget, per_address
from .cgroups import remove_server_trees
from .connection import Connection, ServerLost
from .fairness import FairQueue, IdMinting
from .packages import DEFAULT as DEFAULT_PACKAGES
from .types import Job, Limits, SandboxBusy, SandboxUnavailable, Verdict

MAX_JOB_CHARS = 1 << 20
SHARED_WAITING = 16  # jobs of an address's new ids that may wait in their one line
REPLY_MARGIN = 5.0  # beyond the wall limit, before the server counts as hung
FIRST_START_TIMEOUT = 300.0  # importing torch from a cold disk can take minutes
RESTART_TIMEOUT = 30.0  # later the files are cached; a run() waits at most this for a restart


class Sandbox:
    def __init__(
        self,
        limits: Limits = Limits(),
        workers: int | None = None,
        queue: int = 256,
        data_dirs: tuple[Path, ...] = (),
        *,
        uid_base: int | None = None,
        namespaces: bool = True,
        python: str | None = None,
        cgroups: bool = True,
        per_owner_waiting: int = 4,
        new_owners_per_minute: int = 60,
        address_jobs: int = 0,
        packages: tuple[str, ...] = DEFAULT_PACKAGES,
        jobs: int | None = None,
        background: int = 0,
        max_wait: float = 10.0,
    ):
        """uid_base: job processes run as uid_base + slot when root (default: a free block of 64
        from 60000 on, so servers of several web workers never share uids); namespaces=False skips
        every namespace (for hosts where they misbehave); python: interpreter for the server;
        cgroups=False keeps to polling /proc for process-tree limits.
        Fairness (fairness.py): per_owner_waiting jobs may wait per owner; an address brings at
        most new_owners_per_minute new owners (0: no bound); address_jobs > 0 bounds the jobs in
        flight per address (off by default: a classroom may share one address).
        packages: distributions jobs may import, with their dependencies (packages.py);
        jobs: how many may run at once (default: budget.py's memory and process budget, at most
        5 per worker); one address may hold `budget.per_address` of them.
        background: jobs of background work (strength analyses) at once, shared with FSRS fits
        (background.py); 0: half the workers, at least one.
        max_wait: a job whose wait would be longer is refused at once, with when to retry
        (fairness.py; 0: only the lines' lengths bound them); queue bounds the waiting jobs."""
        self.limits, self.queue = limits, queue
        self.workers = workers or os.cpu_count() or 1
        self.jobs = jobs or job_budget(self.workers, limits)
        self.fair = FairQueue(
            self.jobs,
            queue,
            per_owner_waiting,
            max(1, self.workers - 1),
            per_address_running=per_address(self.workers, self.jobs),
            shared_waiting=max(per_owner_waiting, min(queue // 2, SHARED_WAITING)),
            shared_running=self.workers,
            max_wait=max_wait,
        )
        self.background = BackgroundBudget(background or max(1, self.workers // 2))
        self.minting = IdMinting(new_owners_per_minute)
        self.address_jobs = address_jobs
        self._per_address: dict[str, int] = {}
        self.data_dirs = tuple(Path(p).resolve() for p in data_dirs)
        self.uid_base, self.namespaces, self.python = uid_base, namespaces, python or sys.executable
        self.cgroups = cgroups
        self.packages = tuple(packages)
        self._conn: Connection | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._started_once = False
        self.restarts = 0  # fork servers started to replace a lost one
        self.on_restart: Callable[[], None] = lambda: None

    async def start(self) -> None:
        self._closed = False
        await self._connection()

    async def close(self) -> None:
        self._closed = True
        async with self._lock:
            if self._conn is not None:
                await self._end(self._conn)
                self._conn = None

    @staticmethod
    async def _end(conn: Connection) -> None:
        """Ends a server (or what is left of a dead one) and anything it left in cgroupfs."""
        await conn.close()
        bases = list(conn.ready.get("accounting", {}).get("controllers", {}).values())
        if bases:
            await asyncio.get_running_loop().run_in_executor(None, remove_server_trees, bases)

    def protections(self) -> dict[str, bool]:
        return dict(self._conn.ready["protections"]) if self._conn else {}

    def accounting(self) -> dict:
        """How process-tree limits are enforced (cgroup controllers, or polling) and the
        paths the jobs' root holds, as measured at start-up."""
        ready = self._conn.ready if self._conn else {}
        return {**ready.get("accounting", {}), "root_view": ready.get("root_view", [])}

    def server(self) -> dict:
        """The fork server as this client sees it, without asking it anything."""
        conn = self._conn
        return {
            "state": "running" if conn is not None and conn.alive else "down",
            "pid": conn.proc.pid if conn is not None else None,
            "restarts": self.restarts,
            "jobs_running": self.fair.busy(),
            "jobs_waiting": self.fair.waiting(),
            "job_slots": self.jobs,
            "background_slots": self.background.slots,
            "background_in_use": self.background.held(),
        }

    async def status(self) -> dict:
        """Pids and memory of the server tree (for the health page, tests and benchmarks)."""
        conn = await self._connection()
        return (await conn.ask("status", REPLY_MARGIN))["info"]

    async def run(
        self,
        job: Job,
        owner: str | None = None,
        address: str | None = None,
        new_owner: bool = False,
        background: bool = False,
        settled: bool = False,
    ) -> Verdict:
        """owner: the learner the job is for (None: a job of its own); address: the client's;
        new_owner: the learner has no verdict yet (their jobs share the address's line of new ids);
        settled: their first verdict was not this minute (it does not count as a new id of the address);
        background: nobody waits on it (a strength analysis): it takes a place of the background
        budget first, then waits in one line of the fair queue beside the learners'."""
        _validate(job)
        if background:
            async with self.background.slot(), self.fair.slot(BACKGROUND, BACKGROUND):
                return await self._attempts(job)
        shared = owner is not None and new_owner
        if owner is None:
            owner = object()
        else:
            owner = f"new:{address}" if shared else owner if settled else self.minting.owner(owner, address)
        if address is not None and self.address_jobs and self._per_address.get(address, 0) >= self.address_jobs:
            raise SandboxBusy("this address has as many jobs in flight as it may")
        if address is not None:
            self._per_address[address] = self._per_address.get(address, 0) + 1
        try:
            async with self.fair.slot(owner, address, shared=shared):
                return await self._attempts(job)
        finally:
            if address is not None:
                self._per_address[address] -= 1
                if not self._per_address[address]:
                    del self._per_address[address]

    async def _attempts(self, job: Job) -> Verdict:
        for _ in range(2):  # a dead or hung server is replaced and the job retried once
            conn = await self._connection()
            try:
                reply = await conn.ask("run", self.limits.wall_seconds + REPLY_MARGIN, job=job.as_dict())
                return Verdict.from_dict(reply["verdict"])
            except ServerLost:
                continue
        raise SandboxUnavailable("the fork server was lost twice while running this job")

    async def _connection(self) -> Connection:
        async with self._lock:
            if self._conn is not None and self._conn.alive:
                return self._conn
            if self._closed:
                raise SandboxUnavailable("the sandbox is closed")
            if self._conn is not None:
                await self._end(self._conn)
                self._conn = None
            config = {
                "limits": self.limits.as_dict(),
                "workers": self.workers,
                "jobs": self.jobs,
                "cgroups": self.cgroups,
                "uid_base": self.uid_base,
                "namespaces": self.namespaces,
                "data_dirs": [str(p) for p in self.data_dirs],
                "packages": list(self.packages),
            }
            try:
                timeout = RESTART_TIMEOUT if self._started_once else FIRST_START_TIMEOUT
                self._conn = await Connection.open(config, self.python, timeout)
                if self._started_once:
                    self.restarts += 1
                    self.on_restart()
                self._started_once = True
            except (
                TimeoutError,
                OSError,
                RuntimeError,
                EOFError,
                asyncio.IncompleteReadError,
                framing.FrameError,
            ) as exc:
                raise SandboxUnavailable(f"could not start the fork server: {exc}") from exc
            return self._conn


def _validate(job: Job) -> None:
    if not all(isinstance(n, str) and isinstance(s, str) for n, s in job.parts):
        raise TypeError("Job.parts must be (name, source) string pairs")
    if sum(len(s) for _, s in job.parts) > MAX_JOB_CHARS:
        raise ValueError("job sources too large")
