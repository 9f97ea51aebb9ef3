"""What a graded submission leaves behind: its log line and its metrics (never its answers)."""

import logging
from contextlib import contextmanager
from time import perf_counter

log = logging.getLogger("codecloze.submissions")


class Stopwatch:
    """Times the stages of one submission, from its creation on."""

    def __init__(self):
        self.started = perf_counter()
        self.laps: dict[str, float] = {}

    def time(self, stage: str, function, *args, **kwargs):
        begun = perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            self.laps[stage] = perf_counter() - begun

    @contextmanager
    def measure(self, stage: str):
        """Adds the block's time to the stage's (a stage may come in several pieces)."""
        begun = perf_counter()
        try:
            yield
        finally:
            self.laps[stage] = self.laps.get(stage, 0.0) + perf_counter() - begun

    async def wait(self, stage: str, awaitable):
        begun = perf_counter()
        try:
            return await awaitable
        finally:
            self.laps[stage] = perf_counter() - begun

    def total(self) -> float:
        return perf_counter() - self.started


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


# The phases of a submission, in order, as the log line names them (each `<phase>_ms`): reading
# what grading needs from the database, scoring the blanks, waiting for a sandbox slot (queue) and
# the job's run, deciding credit, the commit of the attempt (the memory update is in it), and
# rendering the outcome.
PHASES = ("reading", "scoring", "queue", "run", "credit", "commit", "render")


def phases(laps: dict[str, float], run) -> dict[str, float | None]:
    """Each phase's seconds (None: it did not happen); the sandbox's lap is split into the wait
    for a slot and the job's own run as the job measured it."""
    out = {phase: laps.get(phase) for phase in PHASES}
    sandbox = laps.get("sandbox") if run is not None else None
    if sandbox is not None:
        out["run"] = min(sandbox, run.seconds or 0.0)
        out["queue"] = sandbox - out["run"]
    return out


def fields(drill, result, laps: dict[str, float], sandbox: float | None, total: float) -> dict:
    """The log line's fields: what was graded and how long each phase took; no answer text."""
    timed = {f"{phase}_ms": _ms(seconds) for phase, seconds in phases(laps, result.run).items()}
    return {
        "snippet": drill.snippet.id,
        "version": drill.snippet.version,
        "mode": drill.mode,
        "unit": drill.unit,
        "rate": drill.rate,
        "blanks": result.total,
        "correct": result.correct,
        "verdict": getattr(result.run, "status", "not_run"),
        "saved": result.saved,
        **timed,
        "sandbox_ms": _ms(sandbox),
        "total_ms": _ms(total),
    }


def graded(request, drill, result, clock: Stopwatch) -> None:
    """Logs the submission and counts it; a failure here never fails the submission."""
    try:
        sandbox = clock.laps.get("sandbox") if result.run is not None else None  # not run: no sandbox time
        total = clock.total()
        line = fields(drill, result, clock.laps, sandbox, total)
        log.info("submission", extra=line)
        metrics = getattr(request.app.state, "metrics", None)
        if metrics is not None:
            metrics.submission(line["verdict"], sandbox, total)
    except Exception as err:  # noqa: BLE001 - observing must not break serving
        logging.getLogger("codecloze").warning("could not record a submission: %r", err)
