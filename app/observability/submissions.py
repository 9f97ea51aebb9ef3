"""What a graded submission leaves behind: its log line and its metrics (never its answers)."""

import logging
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


def fields(drill, result, scoring: float | None, sandbox: float | None, total: float) -> dict:
    """The log line's fields: what was graded and how long it took; no answer text."""
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
        "scoring_ms": _ms(scoring),
        "sandbox_ms": _ms(sandbox),
        "total_ms": _ms(total),
    }


def graded(request, drill, result, clock: Stopwatch) -> None:
    """Logs the submission and counts it; a failure here never fails the submission."""
    try:
        sandbox = clock.laps.get("sandbox") if result.run is not None else None  # not run: no sandbox time
        total = clock.total()
        line = fields(drill, result, clock.laps.get("scoring"), sandbox, total)
        log.info("submission", extra=line)
        metrics = getattr(request.app.state, "metrics", None)
        if metrics is not None:
            metrics.submission(line["verdict"], sandbox, total)
    except Exception as err:  # noqa: BLE001 - observing must not break serving
        logging.getLogger("codecloze").warning("could not record a submission: %r", err)
