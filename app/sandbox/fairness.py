"""Sharing the workers between learners: round-robin by owner, bounded per owner.

A job waits in its owner's line; a freed worker goes to the next owner in turn that has a
job waiting and runs fewer than `per_owner_running` (so one owner never holds every worker
while others wait). Beyond `per_owner_waiting` waiting jobs that owner is told "busy" at
once, while other owners' jobs keep being admitted. Anonymous ids cost nothing, so
`IdMinting` bounds how many new ids one address may bring per minute: jobs of ids beyond
that share one owner per address. An address-wide bound on jobs is optional (a classroom
behind one NAT address must keep working).
"""
import asyncio
import collections
import time
from collections.abc import Callable
from contextlib import asynccontextmanager

from .types import SandboxBusy


class FairQueue:
    def __init__(self, workers: int, queue: int, per_owner_waiting: int, per_owner_running: int):
        self.free, self.queue = workers, queue
        self.per_owner_waiting, self.per_owner_running = per_owner_waiting, per_owner_running
        self.lines: dict[object, collections.deque[asyncio.Future]] = {}  # insertion order = turns
        self.running: collections.Counter = collections.Counter()
        self.workers = workers
        self.on_change: Callable[[int, int], None] = lambda waiting, running: None  # metrics

    def _changed(self) -> None:
        self.on_change(self.waiting(), self.workers - self.free)

    def waiting(self, owner=None) -> int:
        if owner is not None:
            return len(self.lines.get(owner, ()))
        return sum(map(len, self.lines.values()))

    @asynccontextmanager
    async def slot(self, owner):
        """Holds one worker for `owner` while the block runs; SandboxBusy when its line is full."""
        if self.free and self.running[owner] < self.per_owner_running and not self.waiting(owner):
            self._take(owner)
        else:
            await self._wait(owner)
        try:
            yield
        finally:
            self._release(owner)

    async def _wait(self, owner) -> None:
        if self.waiting() >= self.queue or self.waiting(owner) >= self.per_owner_waiting:
            raise SandboxBusy("this learner's jobs, or all jobs, fill the queue")
        future = asyncio.get_running_loop().create_future()
        self.lines.setdefault(owner, collections.deque()).append(future)
        self._changed()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # granted just before the cancel
                self._release(owner)
            else:
                self._forget(owner, future)
            raise

    def _take(self, owner) -> None:
        self.free -= 1
        self.running[owner] += 1
        self._changed()

    def _release(self, owner) -> None:
        self.running[owner] -= 1
        if not self.running[owner]:
            del self.running[owner]
        self.free += 1
        self._changed()
        self._dispatch()

    def _forget(self, owner, future) -> None:
        line = self.lines.get(owner)
        if line is not None and future in line:
            line.remove(future)
            if not line:
                del self.lines[owner]
            self._changed()

    def _dispatch(self) -> None:
        """Each free worker to the next owner in turn that may run one more job."""
        while self.free:
            owner = next((o for o in self.lines if self.running[o] < self.per_owner_running), None)
            if owner is None:
                return
            line = self.lines.pop(owner)
            future = line.popleft()
            if line:
                self.lines[owner] = line  # to the back of the turns
            self._take(owner)
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
