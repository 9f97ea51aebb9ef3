"""Sharing the job slots: round-robin between client addresses, then between learners of one.

A job waits in its owner's line, and lines are grouped by the client's address. A freed slot
goes to the next address in turn that has a job waiting and runs fewer than
`per_address_running`, and within it to the next owner in turn that runs fewer than
`per_owner_running` (so one owner, or one address, never holds every slot while others wait).
Beyond `per_owner_waiting` waiting jobs that owner is told "busy" at once, while other owners'
jobs keep being admitted. A job is admitted to wait by how long its wait would be, not by a fixed
length: with `max_wait` set, a job whose address's line would take longer than that to reach it
(its jobs ahead × how long that address's jobs lately ran, over the slots it may hold) is told
"busy" at once, with when to retry; `queue` only bounds the waiting jobs' memory. Ids cost
nothing, so ids new to the server (no attempt yet) share one line per address (`shared=True`,
its own bounds) until their first verdict; `IdMinting` bounds how many new ids one address may
bring per minute besides. Slots are not workers: a sleeping job holds little, so the client
admits several jobs per worker (client.py: `job_budget`) and the cgroups share the CPU between
them.
"""

import asyncio
import collections
import time
from collections.abc import Callable
from contextlib import asynccontextmanager

from .types import SandboxBusy

RECENT_WEIGHT = 0.2  # of a job's run time in its address's moving average
FIRST_JOB_SECONDS = 0.5  # what an address's jobs are taken to run for before one has
REMEMBERED_ADDRESSES = 4096


class FairQueue:
    def __init__(
        self,
        workers: int,
        queue: int,
        per_owner_waiting: int,
        per_owner_running: int,
        per_address_running: int | None = None,
        shared_waiting: int | None = None,
        shared_running: int | None = None,
        max_wait: float = 0.0,
    ):
        """workers: the slots (jobs running at once); the rest bound lines as the module says."""
        self.free = self.workers = workers
        self.queue = queue
        self.per_owner_waiting, self.per_owner_running = per_owner_waiting, per_owner_running
        self.per_address_running = per_address_running or workers
        self.shared_waiting = shared_waiting or per_owner_waiting
        self.shared_running = shared_running or per_owner_running
        # address -> owner -> waiting jobs; insertion order = turns, at both levels
        self.lines: dict[object, dict[object, collections.deque[asyncio.Future]]] = {}
        self.running: collections.Counter = collections.Counter()
        self.address_running: collections.Counter = collections.Counter()
        self.owner_waiting: collections.Counter = collections.Counter()
        self.shared: set = set()  # owners that are an address's line of new ids
        self.max_wait = max_wait  # seconds; 0: only the lengths bound the lines
        self.job_seconds: collections.OrderedDict = collections.OrderedDict()  # address -> recent run time
        self.on_change: Callable[[int, int], None] = lambda waiting, running: None  # metrics

    def _changed(self) -> None:
        self.on_change(self.waiting(), self.busy())

    def busy(self) -> int:
        return self.workers - self.free

    def waiting(self, owner=None) -> int:
        if owner is not None:
            return self.owner_waiting.get(owner, 0)
        return sum(self.owner_waiting.values())

    def _may_run(self, owner, address) -> bool:
        limit = self.shared_running if owner in self.shared else self.per_owner_running
        return self.running[owner] < limit and self.address_running[address] < self.per_address_running

    @asynccontextmanager
    async def slot(self, owner, address=None, shared: bool = False):
        """Holds one slot for `owner` (at `address`) while the block runs; SandboxBusy when its
        line is full. shared: the owner is the address's line of new ids."""
        if shared:
            self.shared.add(owner)
        try:
            if self.free and self._may_run(owner, address) and not self.waiting(owner):
                self._take(owner, address)
            else:
                await self._wait(owner, address)
        except BaseException:
            self._tidy(owner)
            raise
        began = time.monotonic()
        try:
            yield
        finally:
            self._ran(address, time.monotonic() - began)
            self._release(owner, address)

    def _ran(self, address, seconds: float) -> None:
        """How long the address's jobs run, as a moving average (the latest jobs weigh most)."""
        last = self.job_seconds.pop(address, seconds)
        self.job_seconds[address] = last + RECENT_WEIGHT * (seconds - last)
        if len(self.job_seconds) > REMEMBERED_ADDRESSES:
            self.job_seconds.popitem(last=False)

    def expected_wait(self, address) -> float:
        """Seconds a job of `address` admitted now would wait: its address's jobs ahead, each as
        long as that address's jobs lately ran, shared out over the slots it may hold."""
        ahead = sum(len(line) for line in self.lines.get(address, {}).values()) + 1
        seconds = self.job_seconds.get(address, FIRST_JOB_SECONDS)
        return ahead * seconds / self.per_address_running

    async def _wait(self, owner, address) -> None:
        limit = self.shared_waiting if owner in self.shared else self.per_owner_waiting
        if self.waiting() >= self.queue or self.waiting(owner) >= limit:
            raise SandboxBusy("this learner's jobs, or all jobs, fill the queue")
        if self.max_wait and (wait := self.expected_wait(address)) > self.max_wait:
            raise SandboxBusy("the wait would be too long", retry_after=max(1.0, wait - self.max_wait + 1))
        future = asyncio.get_running_loop().create_future()
        self.lines.setdefault(address, {}).setdefault(owner, collections.deque()).append(future)
        self.owner_waiting[owner] += 1
        self._changed()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # granted just before the cancel
                self._release(owner, address)
            else:
                self._forget(owner, address, future)
            raise

    def _take(self, owner, address) -> None:
        self.free -= 1
        self.running[owner] += 1
        self.address_running[address] += 1
        self._changed()

    def _release(self, owner, address) -> None:
        for counter, key in ((self.running, owner), (self.address_running, address)):
            counter[key] -= 1
            if not counter[key]:
                del counter[key]
        self._tidy(owner)
        self.free += 1
        self._changed()
        self._dispatch()

    def _tidy(self, owner) -> None:
        if owner not in self.running and not self.owner_waiting.get(owner):
            self.shared.discard(owner)

    def _unqueued(self, owner, address, future) -> None:
        """Bookkeeping once `future` left its line (granted or forgotten)."""
        owners = self.lines[address]
        if not owners[owner]:
            del owners[owner]
        if not owners:
            del self.lines[address]
        self.owner_waiting[owner] -= 1
        if not self.owner_waiting[owner]:
            del self.owner_waiting[owner]

    def _forget(self, owner, address, future) -> None:
        line = self.lines.get(address, {}).get(owner)
        if line is not None and future in line:
            line.remove(future)
            self._unqueued(owner, address, future)
            self._changed()

    def _next(self):
        """The (address, owner) whose turn it is, among those that may run one more job."""
        for address, owners in self.lines.items():
            if self.address_running[address] >= self.per_address_running:
                continue
            for owner in owners:
                if self._may_run(owner, address):
                    return address, owner
        return None

    def _dispatch(self) -> None:
        """Each free slot to the next address in turn, and there to the next owner in turn."""
        while self.free:
            turn = self._next()
            if turn is None:
                return
            address, owner = turn
            owners = self.lines.pop(address)
            line = owners.pop(owner)
            future = line.popleft()
            owners[owner] = line  # this owner to the back of its address's turns
            self.lines[address] = owners  # and this address to the back of the turns
            self._unqueued(owner, address, future)
            self._take(owner, address)
            future.set_result(None)


class IdMinting:
    """New learner ids per address and minute; ids past the bound share the address's owner."""

    def __init__(self, per_minute: int, remembered: int = 4096, window: float = 60.0):
        self.per_minute, self.remembered, self.window = per_minute, remembered, window
        self.known: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()
        self.minted: dict[str, collections.deque[float]] = {}

    def owner(self, learner: str, address: str | None):
        if address is None or self.per_minute <= 0:
            return learner
        key = (address, learner)
        if key in self.known:
            self.known.move_to_end(key)
            return learner
        now = time.monotonic()
        times = self.minted.setdefault(address, collections.deque())
        while times and times[0] < now - self.window:
            times.popleft()
        if len(times) >= self.per_minute:
            return f"address:{address}"
        times.append(now)
        self.known[key] = None
        if len(self.known) > self.remembered:
            self.known.popitem(last=False)
        if len(self.minted) > self.remembered:
            self.minted.pop(next(iter(self.minted)))
        return learner
