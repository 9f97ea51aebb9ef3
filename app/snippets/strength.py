"""How strong a snippet's check is: one-token mutants of the reference code, and the share of
them the check catches. A mutant that passes is a slip a learner could make and be told "passed".
"""
import asyncio
import time
from dataclasses import dataclass

from .jobs import job_for
from ..sandbox.types import SandboxBusy, SandboxUnavailable
from .model import Snippet
from .mutants import Mutant, mutants

NOT_RUN = "not run"
BUSY_RETRY_SECONDS = 0.2


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str  # the verdict's status, or "not run"

    @property
    def caught(self) -> bool:
        return self.status not in ("passed", NOT_RUN)


@dataclass(frozen=True)
class StrengthReport:
    results: tuple[MutantResult, ...]
    seconds: float

    @property
    def caught(self) -> int:
        return sum(r.caught for r in self.results)

    @property
    def total_run(self) -> int:
        return sum(r.status != NOT_RUN for r in self.results)

    @property
    def score(self) -> float:
        """Caught share of the mutants that ran (0 when none ran)."""
        return self.caught / self.total_run if self.total_run else 0.0

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.results if r.status == "passed"]


async def check_strength(snippet: Snippet, sandbox, *, max_mutants: int = 40, budget_seconds: float = 60,
                         on_progress=None) -> StrengthReport:
    """Runs each mutant against the check; meant for a snippet whose reference code passes.

    Mutants not finished within the budget are reported as "not run", never as caught.
    """
    started = time.monotonic()
    todo = await asyncio.to_thread(mutants, snippet, max_mutants)  # compiling each keeps a loop busy
    deadline = started + budget_seconds
    # At most one job per sandbox worker: the sandbox's queue is shared with learners, who
    # should not get "busy" because an author is measuring a check.
    slots = asyncio.Semaphore(getattr(sandbox, "workers", None) or 4)
    done = 0
    if on_progress:
        on_progress(0, len(todo))

    async def one(mutant: Mutant) -> MutantResult:
        nonlocal done
        async with slots:
            status = await _status(sandbox, job_for(snippet, mutant.code), deadline)
        done += 1
        if on_progress:
            on_progress(done, len(todo))
        return MutantResult(mutant, status)

    results = await asyncio.gather(*map(one, todo))
    return StrengthReport(tuple(results), time.monotonic() - started)


async def _status(sandbox, job, deadline: float) -> str:
    while (left := deadline - time.monotonic()) > 0:
        try:
            return (await asyncio.wait_for(sandbox.run(job), left)).status
        except SandboxBusy:
            await asyncio.sleep(min(BUSY_RETRY_SECONDS, left))
        except (asyncio.TimeoutError, SandboxUnavailable):
            return NOT_RUN
    return NOT_RUN
