"""Grades sent back to LMSs through AGS: each learner's progress on a deep-linked assignment, as
a score from 0 to 1 (1: the assignment's target reached).

A row of `lti_grades` says a score is owed when its `next_try` is set. The transaction that writes a
batch of attempts sets it for the learners in it, so an attempt and its mark commit together and a
crash loses neither. The score itself is read from the committed attempts when it is sent, never
carried in the row, so a send that fails is simply tried again later (backing off to an hour), with
whatever the learner has done by then. A row is claimed before it is sent, so of several workers one
sends it, and cleared only if nobody marked it again while it was being sent.
"""

import asyncio
import logging
import threading
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.engine import Connection, Engine

from app.classes import assignments
from app.errors import NotFound

from . import platforms
from .launches import SCORE_SCOPE
from .tables import grades, links

log = logging.getLogger("codecloze")
FIRST_RETRY_SECONDS = 5
LAST_RETRY_SECONDS = 3600
POLL_SECONDS = 5.0
CLAIM_SECONDS = 60  # a send that never finished (its worker died) is due again after this
BATCH = 50


def score_of(a: assignments.Assignment, p: assignments.Progress) -> float:
    """Progress towards the target as 0–1: best accuracy over the target accuracy, or review days
    over the days asked for."""
    return round(min(1.0, float(p.value) / a.goal), 4) if a.goal else 0.0


def owe(db: Connection, learners: set[str], now: datetime) -> int:
    """Mark the scores of these learners owed, in the transaction that writes their attempts; how
    many rows that marked (none on a server without LMS learners: an update of no row)."""
    if not learners:
        return 0
    return db.execute(_OWE, {"learners": sorted(learners), "now": now}).rowcount


# Built once: it runs in every batch's transaction, LMS or not.
_OWE = (
    update(grades).where(grades.c.learner.in_(bindparam("learners", expanding=True))).values(next_try=bindparam("now"))
)


def summary(engine: Engine) -> dict:
    """What /healthz says of the grades owed to LMSs: how many, and how many failed their last send."""
    with engine.connect() as db:
        owed = db.execute(select(func.count()).where(grades.c.next_try.is_not(None))).scalar()
        failing = db.execute(select(func.count()).where(grades.c.tries > 0)).scalar()
    return {"owed": owed, "failing": failing}


def due(engine: Engine, now: datetime) -> list:
    with engine.connect() as db:
        query = select(grades).where(grades.c.next_try <= now).order_by(grades.c.next_try).limit(BATCH)
        return list(db.execute(query))


def _claimed(engine: Engine, row, now: datetime):
    """The row, claimed for one send (another worker, or this one, finds it not due for a while),
    or None when someone else claimed or marked it first."""
    until = now + timedelta(seconds=CLAIM_SECONDS)
    with engine.begin() as db:
        taken = db.execute(update(grades).where(_key(row), grades.c.next_try == row.next_try).values(next_try=until))
    return SimpleNamespace(**{**row._asdict(), "next_try": until}) if taken.rowcount == 1 else None


def send_one(engine: Engine, row, now: datetime) -> str:
    """Send one owed score: "sent", "unchanged", "gone" (link or assignment deleted), "failed", or
    "taken" (another worker sends it)."""
    row = _claimed(engine, row, now)
    if row is None:
        return "taken"
    with engine.connect() as db:
        target = _target(db, row)
        if target is None:
            _settle(engine, row, {})
            return "gone"
        platform, assignment, lineitem = target
        p = assignments.progress(db, [assignment], [row.learner])[row.learner, assignment.id]
        conf = _adapters().tool_conf(db)
    score = score_of(assignment, p)
    if row.sent_score == score and row.sent_attempts == p.attempts:
        _settle(engine, row, {})
        return "unchanged"
    try:
        _post(conf, platform, lineitem, row.sub, score, p.status == "done", now)
    except Exception as err:  # any failure of the platform or the network: tried again later
        wait = min(LAST_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2**row.tries)
        log.warning("lti grade not sent, retry in %ss: %s", wait, str(err)[:200])
        with engine.begin() as db:
            db.execute(
                update(grades)
                .where(_key(row), grades.c.next_try == row.next_try)
                .values(tries=row.tries + 1, next_try=now + timedelta(seconds=wait), last_error=str(err)[:200])
            )
        return "failed"
    _settle(engine, row, {"sent_score": score, "sent_attempts": p.attempts})
    return "sent"


def _key(row):
    return (
        (grades.c.platform_id == row.platform_id)
        & (grades.c.link_id == row.link_id)
        & (grades.c.learner == row.learner)
    )


def _settle(engine: Engine, row, values: dict) -> None:
    """Record a send and clear the mark, unless an attempt marked the row again meanwhile (then
    the next round sends that too)."""
    with engine.begin() as db:
        db.execute(update(grades).where(_key(row)).values(**values, tries=0, last_error=None))
        db.execute(update(grades).where(_key(row), grades.c.next_try == row.next_try).values(next_try=None))


def _target(db, row):
    link = db.execute(
        select(links).where(links.c.platform_id == row.platform_id, links.c.link_id == row.link_id)
    ).first()
    if link is None or link.assignment_id is None or not link.lineitem:
        return None
    found = [a for a in assignments.of_class(db, link.class_code) if a.id == link.assignment_id]
    try:
        platform = platforms.get(db, row.platform_id)
    except NotFound:  # the platform was removed
        return None
    return (platform, found[0], link.lineitem) if found else None


def _post(conf, platform, lineitem: str, sub: str, score: float, done: bool, now: datetime) -> None:
    from pylti1p3.assignments_grades import AssignmentsGradesService
    from pylti1p3.grade import Grade
    from pylti1p3.service_connector import ServiceConnector

    adapters = _adapters()
    registration = conf.find_registration_by_params(platform.issuer, platform.client_id)
    service = AssignmentsGradesService(
        ServiceConnector(registration, adapters.http()), {"scope": [SCORE_SCOPE], "lineitem": lineitem}
    )
    grade = (
        Grade()
        .set_score_given(score)
        .set_score_maximum(1)
        .set_activity_progress("Completed" if done else "InProgress")
        .set_grading_progress("FullyGraded")
        .set_timestamp(now.isoformat(timespec="milliseconds").replace("+00:00", "Z"))
        .set_user_id(sub)
    )
    service.put_grade(grade)


def _adapters():
    """PyLTI1p3 and its JOSE libraries, loaded when a score is first owed (~16 MiB a server
    without LMSs never holds)."""
    from . import adapters

    return adapters


class GradeSender:
    """Sends owed scores in the background: woken by a committed batch that owes one, and every few
    seconds for retries that come due."""

    def __init__(self, engine: Engine):
        self._engine = engine
        self._wake = threading.Event()
        self._marked = False
        self._task: asyncio.Task | None = None

    def mark(self, db: Connection, learners: set[str]) -> None:
        """In the writer's thread, inside the batch's transaction: their scores are owed."""
        self._marked = owe(db, learners, datetime.now(UTC)) > 0 or self._marked

    def wrote(self) -> None:
        """In the writer's thread, after the batch committed: send what it marked."""
        if self._marked:
            self._marked = False
            self._wake.set()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._wake.set()  # what was owed before a restart goes at once
        self._task = loop.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.to_thread(self._wake.wait, POLL_SECONDS)
            self._wake.clear()
            try:
                await asyncio.to_thread(self.round)
            except Exception:
                log.exception("lti grades: a round failed")

    def round(self) -> dict[str, int]:
        """Send every score owed now; what became of each."""
        counts: dict[str, int] = {}
        for row in due(self._engine, datetime.now(UTC)):
            outcome = send_one(self._engine, row, datetime.now(UTC))
            counts[outcome] = counts.get(outcome, 0) + 1
        return counts

    def close(self) -> None:
        if self._task:
            self._task.cancel()
        self._wake.set()
