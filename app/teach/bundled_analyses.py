"""The bundled snippets' check-strength analyses, complete before the server says it is ready.

At start-up each bundled snippet's analysis comes from the database, else from the one shipped
beside it (snippets/shipped_strength.py) when that was made of this very code and check; any
other is made in the background as soon as the sandbox runs, and `/readyz` answers 503 until all
are complete. An answer given meanwhile is judged provisionally and again when its analysis
completes (learn/rejudging.py), so it still ends with one verdict.
"""

import logging
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from ..db import strength_rows
from ..snippets.model import Snippet
from ..snippets.shipped_strength import shipped

log = logging.getLogger("codecloze")


def load_shipped(engine, snippets: list[Snippet], folder: Path) -> list[Snippet]:
    """Shipped analyses into the database where it has none; the snippets still without one."""
    missing = []
    for snippet in snippets:
        if strength_rows.judged(engine, snippet.id, snippet.version)[0] == "complete":
            continue
        found = shipped(folder, snippet)
        if found is None:
            missing.append(snippet)
            continue
        strength_rows.save(
            engine,
            snippet.id,
            snippet.version,
            state="complete",
            done=found["report"]["mutants"],
            total=found["report"]["mutants"],
            caught=[p["index"] for p in found["report"]["positions"] if p["state"] == "caught"],
            judged=found["judged"],
            report=found["report"],
            seconds=found["seconds"],
            error=None,
        )
    if missing:
        log.warning("no shipped check-strength analysis for %s: made at start-up", ", ".join(s.id for s in missing))
    return missing


def start_missing(jobs, snippets: list[Snippet], sandbox, engine) -> None:
    """Analyses of the bundled snippets that have none and that no worker is making."""
    for snippet in snippets:
        try:
            state = strength_rows.judged(engine, snippet.id, snippet.version)[0]
        except SQLAlchemyError:
            state = None
        if state is None:
            jobs.start(snippet, sandbox, engine)


def readiness(engine, snippets: list[Snippet]) -> dict:
    """How many bundled analyses are complete, and which are not yet."""
    states = {s.id: strength_rows.judged(engine, s.id, s.version)[0] for s in snippets}
    waiting = [i for i, state in states.items() if state in (None, "running")]
    failed = [i for i, state in states.items() if state == "failed"]  # a teacher's page says why
    complete = len(states) - len(waiting) - len(failed)
    return {"ready": not waiting, "complete": complete, "of": len(states), "waiting": waiting, "failed": failed}
