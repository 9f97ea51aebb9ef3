"""Grading a submission: the one use case behind drill, exercise and review forms.

Each blank is scored by token match (a teacher's accepted alternatives count), the answers are
spliced into the code and run in the sandbox, and the attempt is recorded: the result comes back
only once the attempt is committed, or says that it was not stored. Nothing here knows of HTTP.
"""

import asyncio
from contextlib import contextmanager
from dataclasses import dataclass, replace

from sqlalchemy.exc import DBAPIError

from app.classes.alternatives import rescored
from app.db import strength_rows
from app.db.commit import NotStored
from app.db.store import Store
from app.engine.score import score, splice
from app.learn.answers import answers_for, responses_for
from app.learn.credit import credited
from app.learn.drills import Drill, revealed_keys
from app.learn.execution import execute
from app.learn.feedback import Result
from app.learn.recording import record_attempt
from app.learn.rejudging import rejudge
from app.memory import reveals
from app.memory.record import attempt_record
from app.observability import Stopwatch


@dataclass(frozen=True)
class Services:
    """What grading uses: the store (attempts, alternatives, strength analyses), the sandbox (None:
    execution off), the background strength runs and the answers' length bound."""

    store: Store
    sandbox: object | None
    strength_jobs: object | None
    known_learners: object  # memory.history.KnownLearners: who has an attempt yet
    max_answer_chars: int


@dataclass(frozen=True)
class Submitter:
    learner: str  # the signed learner id
    address: str | None  # the client address the fair queue shares jobs by
    minted: bool = False  # an id made for this very request (it came without a cookie)


async def grade(
    drill: Drill, fields: dict[str, str], submitter: Submitter, services: Services, clock: Stopwatch
) -> Result:
    """The scored, run and recorded submission (`saved` False when the database refused it)."""
    answers = answers_for(drill.holes, fields, services.max_answer_chars)
    mask = reveals.mask_key(drill.snippet.id, drill.snippet.version, drill.holes)
    responses = (
        responses_for(len(drill.snippet.questions), fields, services.max_answer_chars * 5)
        if drill.mode == "fixed"
        else {}
    )
    with clock.measure("reading"), _reading(services.store.engine) as db:  # one connection for what grading reads
        # Blanks the server showed this learner count as revealed whatever the page now says.
        kept = frozenset() if submitter.minted or db is None else _kept_reveals(db, submitter.learner, mask)
        revealed = revealed_keys(drill.holes, fields) | kept
        verdicts = clock.time("scoring", score, list(drill.holes), answers, revealed)
        if db is not None:
            verdicts = rescored(db, drill.snippet, drill.holes, verdicts)  # a teacher's accepted alternatives
    clock.laps["reading"] -= clock.laps["scoring"]  # the reads around the scoring
    run = await clock.wait("sandbox", _run(drill, answers, submitter, services))
    credit, state = clock.time("credit", _credit, drill, verdicts, run, services)
    result = Result(tuple(verdicts), run, None, responses, credited=credit, provisional=state in (None, "running"))
    try:
        record = attempt_record(submitter.learner, drill, result, fields)
        attempt_id = await clock.wait("commit", record_attempt(services.store, record))
    except NotStored:
        return replace(result, saved=False)  # scored, shown, and said so: nothing pretends it was kept
    if kept:
        _use_up(services.store.engine, submitter.learner, mask, kept)
    if result.provisional and result.unproven:
        await asyncio.to_thread(_judged_if_complete, services.store.engine, drill.snippet)
    return replace(result, attempt_id=attempt_id)


def _judged_if_complete(engine, snippet) -> None:
    """An analysis that completed while this attempt was being written judged again what it
    found written then: this attempt's unproven answers are judged here."""
    try:
        if strength_rows.judged(engine, snippet.id, snippet.version)[0] == "complete":
            rejudge(engine, lambda _id, _version: snippet, snippet.id, snippet.version)
    except DBAPIError:
        pass  # the analysis's next completion, or a teacher's decision, judges it


@contextmanager
def _reading(engine):
    """A connection for grading's reads, or None while the database is down: the answers are
    still scored and shown, and the attempt, which cannot be saved either, says so."""
    try:
        db = engine.connect()
    except DBAPIError:
        yield None
        return
    with db:
        yield db


def _kept_reveals(db, learner: str, mask: str) -> frozenset[str]:
    try:
        return reveals.recorded(db, learner, mask)
    except DBAPIError:
        return frozenset()  # the database is down: this attempt cannot be saved either (it says so)


def _use_up(engine, learner: str, mask: str, kept: frozenset[str]) -> None:
    """Counted: the next try of this mask starts afresh. Should that fail, the next try counts
    them revealed again, which errs on the learner's side of honest."""
    try:
        with engine.begin() as db:
            reveals.taken(db, learner, mask, kept)
    except DBAPIError:
        pass


def _credit(drill: Drill, verdicts, run, services: Services) -> tuple[frozenset[str], str | None]:
    """The blanks a passing run credits, and the state of the analysis that decided it; a
    version without a strength analysis yet gets one started."""
    keys, state = credited(services.store.engine, drill.snippet, drill.holes, verdicts, run)
    if state is None and services.sandbox is not None and services.strength_jobs is not None:
        services.strength_jobs.start(drill.snippet, services.sandbox, services.store.engine, by_learner=True)
    return keys, state


async def _run(drill: Drill, answers: dict[str, str], submitter: Submitter, services: Services):
    """The sandbox's verdict on the completed code; None when it is not run. Code with an empty
    blank cannot be right and would only fail to parse. Ids without an attempt yet share one line
    of the fair queue per address."""
    sandbox = services.sandbox
    runnable = sandbox is not None and all(a.strip() for a in answers.values())
    code = splice(drill.snippet.code, list(drill.holes), answers) if runnable else ""
    known = services.known_learners
    new = runnable and (submitter.minted or not known.has_attempts(submitter.learner))
    return await execute(
        sandbox if runnable else None,
        drill.snippet,
        code,
        owner=str(submitter.learner),
        address=submitter.address,
        new_owner=new,
        settled=runnable and not new and known.settled(submitter.learner),
    )
