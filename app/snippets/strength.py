"""How strong a snippet's check is, position by position: a few one-token mutants of the
reference code at every eligible token, each run against the check in the sandbox.

A position is *caught* when the check catches every mutant there, *weak* when some survive,
*blind* when none is caught, *untested* when no mutant could be made or run. Only at caught
positions can a passing run vouch for an answer token match rejects. A survivor is a survivor
whatever it looks like: that it may be equivalent is a hint for the teacher (hints.py), who
decides (decisions.py).
"""

import asyncio
import time
from dataclasses import dataclass

from ..sandbox.types import SandboxBusy, SandboxUnavailable
from . import batches
from .equivalence import observed_job, same_observation
from .hints import reasons
from .jobs import job_for
from .model import Snippet
from .mutants import PER_POSITION, Mutant, mutants
from .probes import probes_for

NOT_RUN = "not run"
BUSY_RETRY_SECONDS = 0.2
SEEDS = (1, 2, 3)  # differently seeded runs a survivor must pass unchanged to look equivalent
STATES = ("caught", "weak", "blind", "untested")
# What the analysis is: a stored analysis made another way is made again when it is needed.
METHOD = "2"


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str  # the verdict's status, or "not run"
    likely_equivalent: bool = False  # a hint: survived every seeded run and changed nothing observed
    reasons: tuple[dict, ...] = ()  # why it may have survived (hints.py), for survivors

    @property
    def caught(self) -> bool:
        return self.status not in ("passed", NOT_RUN)

    @property
    def survived(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class Position:
    span_index: int
    line: int
    column: int
    text: str
    results: tuple[MutantResult, ...]

    @property
    def state(self) -> str:
        ran = [r for r in self.results if r.status != NOT_RUN]
        caught = sum(r.caught for r in ran)
        if not ran or len(ran) < len(self.results):
            return "untested"  # no mutant, or one the budget left unrun: nothing vouches for the check
        if not caught:
            return "blind"
        return "weak" if any(r.survived for r in ran) else "caught"


@dataclass(frozen=True)
class StrengthReport:
    results: tuple[MutantResult, ...]
    seconds: float
    positions: tuple[Position, ...] = ()
    # The reference's own runs that did not pass (the check under shifted seeds, say): without
    # them no survivor can be compared, and the page says why.
    reference_failures: tuple[dict, ...] = ()

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
        return [r for r in self.results if r.survived]

    @property
    def complete(self) -> bool:
        return all(r.status != NOT_RUN for r in self.results)

    def counts(self) -> dict[str, int]:
        states = [p.state for p in self.positions]
        return {state: states.count(state) for state in STATES}

    def caught_positions(self) -> frozenset[int]:
        return frozenset(p.span_index for p in self.positions if p.state == "caught")


async def check_strength(
    snippet: Snippet, sandbox, *, per_position: int = PER_POSITION, budget_seconds: float = 300, on_progress=None
) -> StrengthReport:
    """Runs every mutant against the check; meant for a snippet whose reference code passes.

    Mutants not finished within the budget are reported as "not run", never as caught.
    """
    started = time.monotonic()
    todo = await asyncio.to_thread(mutants, snippet, per_position)  # compiling each keeps a loop busy
    deadline = started + budget_seconds
    # At most one job per sandbox worker: the sandbox's queue is shared with learners, who
    # should not get "busy" because an author is measuring a check.
    slots = asyncio.Semaphore(getattr(sandbox, "workers", None) or 4)
    progress = _Progress(on_progress, len(todo))

    async def run(job, steps: int = 1):
        async with slots:
            verdict = await _verdict(sandbox, job, deadline)
        progress.advance(steps)
        return verdict

    statuses = await _statuses(snippet, todo, run, progress)
    results = [MutantResult(m, status or NOT_RUN) for m, status in zip(todo, statuses)]
    results, failures = await _hints(snippet, results, run, progress)
    return StrengthReport(tuple(results), time.monotonic() - started, _positions(snippet, results), failures)


async def _statuses(snippet: Snippet, todo: list[Mutant], run, progress) -> list[str | None]:
    """Each mutant's status: in batches of many per job, and alone for any its batch left unreported
    (a limit reached, a crash), so that each status is the one a job of its own gives. The batches'
    size follows the pace measured: the reference alone (an upper bound, fork and all), then a
    first batch."""

    async def batch(chunk: list[Mutant]):
        verdict = await run(batches.batch_job(snippet, [m.code for m in chunk]), 0)
        statuses = batches.batch_statuses(verdict, len(chunk))
        progress.advance(sum(s is not None for s in statuses))
        return statuses, verdict

    reference = await run(job_for(snippet, snippet.code), 0)
    first = todo[: batches.batch_size(reference and reference.seconds)]
    statuses, verdict = await batch(first) if first else ([], None)
    pace = verdict.seconds / len(first) if verdict and verdict.passed else None
    rest, size = todo[len(first) :], batches.batch_size(pace)
    found = await asyncio.gather(*(batch(rest[i : i + size]) for i in range(0, len(rest), size)))
    statuses += [s for chunk, _ in found for s in chunk]
    alone = [i for i, status in enumerate(statuses) if status is None]
    verdicts = await asyncio.gather(*(run(job_for(snippet, todo[i].code)) for i in alone))
    for i, verdict in zip(alone, verdicts):
        statuses[i] = verdict.status if verdict else None
    return statuses


async def _hints(snippet: Snippet, results: list[MutantResult], run, progress) -> tuple[list, tuple[dict, ...]]:
    """Survivors with their hints: the reference traced once under the check's own seeds with
    every survivor's probes, and again under other seeds beside each survivor's own runs."""
    survivors = [i for i, r in enumerate(results) if r.status == "passed"]
    if not survivors:
        return results, ()
    probes = probes_for(snippet.code, [results[i].mutant for i in survivors])
    progress.more(1 + len(SEEDS) * (len(survivors) + 1))
    traced, *reference = await asyncio.gather(
        run(observed_job(snippet, snippet.code, 0, probes)),
        *(run(observed_job(snippet, snippet.code, k)) for k in SEEDS),
    )
    failures = tuple(_failure(k, v) for k, v in zip((0, *SEEDS), (traced, *reference)) if not (v and v.passed))
    comparable = not any(f["seed"] in SEEDS for f in failures)  # else nothing to compare a survivor with
    for n, i in enumerate(survivors):
        line, runs = results[i].mutant.line, ()
        if comparable:
            runs = await asyncio.gather(*(run(observed_job(snippet, results[i].mutant.code, k)) for k in SEEDS))
        else:
            progress.advance(len(SEEDS))
        likely = comparable and all(same_observation(a, b, line) for a, b in zip(reference, runs))
        own = [p for p in probes if p["of"] == n]
        results[i] = MutantResult(results[i].mutant, "passed", likely, reasons(results[i].mutant, own, traced, likely))
    return results, failures


def _failure(k: int, verdict) -> dict:
    if verdict is None:
        return {"seed": k, "status": NOT_RUN, "message": "", "part": None, "line": None}
    part = verdict.part if verdict.part in ("setup", "code", "check") else None
    return {
        "seed": k,
        "status": verdict.status,
        "message": verdict.message[:300],
        "part": part,
        "line": verdict.line if part else None,
    }


def _positions(snippet: Snippet, results: list[MutantResult]) -> tuple[Position, ...]:
    """Every eligible token, with its mutants' results (none where no mutant could be made)."""
    from ..engine.tokens import eligible_spans

    by_span: dict[int, list[MutantResult]] = {}
    for result in results:
        by_span.setdefault(result.mutant.span_index, []).append(result)
    code, out = snippet.code, []
    for span in eligible_spans(code):
        line = code.count("\n", 0, span.start) + 1
        column = span.start - code.rfind("\n", 0, span.start)
        out.append(Position(span.index, line, column, span.text, tuple(by_span.get(span.index, ()))))
    return tuple(out)


class _Progress:
    def __init__(self, report, total: int):
        self.report, self.done, self.total = report, 0, total
        self._say()

    def advance(self, n: int) -> None:
        self.done += n
        self._say()

    def more(self, n: int) -> None:
        self.total += n
        self._say()

    def _say(self) -> None:
        if self.report:
            self.report(self.done, self.total)


async def _verdict(sandbox, job, deadline: float):
    while (left := deadline - time.monotonic()) > 0:
        try:
            return await asyncio.wait_for(sandbox.run(job), left)
        except SandboxBusy:
            await asyncio.sleep(min(BUSY_RETRY_SECONDS, left))
        except (TimeoutError, SandboxUnavailable):
            return None
    return None
