"""The share of the machine that work nobody is waiting on may take.

Strength analyses (their mutant jobs) and FSRS fits run for minutes in the background; learners
wait on their verdicts now. All background work of a process shares `slots` places: a mutant job
holds one while it runs in the sandbox (and then also waits its turn in the fair queue, under one
owner of its own, so it never fills the queue learners need), a fit holds one while its process
runs. By default that is half the sandbox's workers, at least one: the other half is the learners'.
"""

import asyncio
from contextlib import asynccontextmanager, contextmanager

# The fair queue's owner and address of every background job: one line beside the learners'.
OWNER = ("background",)


class BackgroundBudget:
    def __init__(self, slots: int):
        self.slots = slots
        self._free = asyncio.Semaphore(slots)
        self._held = 0

    def held(self) -> int:
        return self._held

    async def _take(self) -> None:
        await self._free.acquire()
        self._held += 1

    def _give(self) -> None:
        self._held -= 1
        self._free.release()

    @asynccontextmanager
    async def slot(self):
        """Holds one place while the block runs (waiting for one first)."""
        await self._take()
        try:
            yield
        finally:
            self._give()

    @contextmanager
    def slot_from_thread(self, loop: asyncio.AbstractEventLoop, waiting: list):
        """The same, for a thread beside `loop` (a fitter); the acquisition under way is kept in
        `waiting`, so that closing can cancel it (concurrent.futures.CancelledError)."""
        future = asyncio.run_coroutine_threadsafe(self._take(), loop)
        waiting.append(future)
        try:
            future.result()
        finally:
            waiting.remove(future)
        try:
            yield
        finally:
            loop.call_soon_threadsafe(self._give)
