"""Fitting FSRS parameters to one learner's own token reviews, away from every request.

The store tells the fitter which learners it just wrote; a thread of the fitter reads their
review counts and, for a learner with enough reviews and none fitted on as many yet, runs the
`fsrs` Optimizer in a separate process at the lowest CPU priority (it imports torch and runs for
a minute or more: never in the web process, never while a response waits, never ahead of a
learner's job). The parameters are stored, and every
later review, due date and review mask of that learner uses them (learner_model.py).

Several workers or hosts each run a fitter; a learner is fitted by one at a time: a fitter claims
the learner in the database (`memory_models.fitting_since`, set only where it is unset or older than
a fit may run, and only while the learner still needs a fit) and clears the claim afterwards.
"""

import concurrent.futures
import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import or_, select, update
from sqlalchemy.exc import SQLAlchemyError

from ..db.tables import attempts
from .learner_model import save_parameters
from .schedule import TOKEN_RATING, aware
from .tables import learners, models

log = logging.getLogger("codecloze.memory")
REFIT_FACTOR = 2  # fit again once the reviews doubled since the last fit
FIT_SECONDS = 1800  # a fit still running after this is ended
SETTLE_SECONDS = 5.0  # quiet after the last write, before the fitter looks at who was written
SETTLE_AT_MOST = 60.0  # under writes that never pause, it looks after this long
OLDEST_AMONG = 500  # learners compared for age at each turn (the first this many in line)


# Asked after every batch the store writes, of each of its learners: built once.
def review_logs(db, learner: str) -> list:
    """Every token review of the learner as an fsrs ReviewLog (one card per snippet version and span)."""
    from fsrs import ReviewLog

    query = (
        select(attempts.c.snippet_id, attempts.c.version, attempts.c.blanks, attempts.c.created_at)
        .where(attempts.c.learner == learner, attempts.c.practice.is_(False))
        .order_by(attempts.c.created_at)
    )
    ids, logs = {}, []
    for row in db.execute(query):
        for entry in row.blanks or ():
            span = entry.get("span")
            first, last = (span, span) if isinstance(span, int) else (span or (None, None))
            if first is None or entry.get("state") not in TOKEN_RATING:
                continue
            for index in range(first, last + 1):
                card = ids.setdefault((row.snippet_id, row.version, index), len(ids) + 1)
                logs.append(ReviewLog(card, TOKEN_RATING[entry["state"]], aware(row.created_at), None))
    return logs


def fitted_parameters(logs: list) -> list[float]:
    import torch
    from fsrs.optimizer import Optimizer

    torch.set_num_threads(1)
    return Optimizer(logs).compute_optimal_parameters()


def fit_learner(url: str, learner: str) -> int:
    """In the fitting process: fit and store; the number of reviews fitted on."""
    from app.db.store import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as db:
            reviews = db.execute(select(models.c.reviews).where(models.c.learner == learner)).scalar() or 0
            logs = review_logs(db, learner)
        parameters = fitted_parameters(logs)
        with engine.begin() as db:
            save_parameters(db, learner, parameters, reviews, datetime.now(UTC))
        return reviews
    finally:
        engine.dispose()


def oldest(engine, candidates: list[str]) -> str:
    """Of the candidates, the learner created first (the first candidate if none is known)."""
    try:
        with engine.connect() as db:
            found = db.execute(
                select(learners.c.id).where(learners.c.id.in_(candidates)).order_by(learners.c.created_at).limit(1)
            ).scalar()
    except SQLAlchemyError:
        found = None
    return found if found in candidates else candidates[0]


def fit_due(engine, learner: str, minimum: int) -> bool:
    """Whether the learner's reviews call for a fit now (a read: claim_fit decides who fits)."""
    with engine.connect() as db:
        row = db.execute(select(models.c.reviews, models.c.fitted_reviews).where(models.c.learner == learner)).first()
    return row is not None and needs_fit(row.reviews or 0, row.fitted_reviews or 0, minimum)


def needs_fit(reviews: int, fitted_reviews: int, minimum: int) -> bool:
    return minimum > 0 and reviews >= minimum and reviews >= REFIT_FACTOR * fitted_reviews


def claim_fit(engine, learner: str, minimum: int, now: float) -> bool:
    """Whether this fitter may fit the learner now: they need a fit and no other fitter holds them
    (a claim older than a fit may run was left by a fitter that died)."""
    if minimum <= 0:
        return False
    c = models.c
    with engine.begin() as db:
        claimed = db.execute(
            update(models)
            .where(
                c.learner == learner,
                c.reviews >= minimum,
                c.reviews >= REFIT_FACTOR * c.fitted_reviews,
                or_(c.fitting_since.is_(None), c.fitting_since < now - FIT_SECONDS - 60),
            )
            .values(fitting_since=now)
        )
    return claimed.rowcount == 1


def release_fit(engine, learner: str, since: float) -> None:
    with engine.begin() as db:
        db.execute(
            update(models)
            .where(models.c.learner == learner, models.c.fitting_since == since)
            .values(fitting_since=None)
        )


class Fitter:
    """One fitting process at a time; learners written meanwhile wait their turn (once each), the
    learner who has been here longest first (cheap new ids never push established learners back).
    Given the sandbox's background budget (`share`), a fit holds one of its places while it runs;
    given `host_lock` (a file on this host), the fitters of all workers on the host take turns."""

    def __init__(self, engine, url: str, minimum: int, host_lock: Path | None = None, settle: float = SETTLE_SECONDS):
        self.engine, self.url, self.minimum, self.host_lock = engine, url, minimum, host_lock
        self.settle = settle  # seconds after a write before the learners written are looked at
        self._queued: dict[str, None] = {}  # learners waiting, in order of arrival
        self._changed = threading.Condition()
        self._closing = False
        self._last_write = 0.0
        self._budget, self._loop, self._acquiring = None, None, []
        self._process: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._run, name="fsrs-fitter", daemon=True)
        self.fitted = 0
        if minimum > 0:
            self._thread.start()

    def share(self, budget, loop) -> None:
        """Fits from now on take a place of `budget` (sandbox/background.py), an event loop's."""
        self._budget, self._loop = budget, loop

    def wrote(self, learners) -> None:
        """Called by the store after a batch commits: cheap, never waits."""
        if self.minimum <= 0:
            return
        with self._changed:
            for learner in learners:
                self._queued.setdefault(learner, None)
            self._last_write = time.monotonic()
            self._changed.notify()

    def _run(self) -> None:
        while (learner := self._next()) is not None:
            try:
                self._maybe_fit(learner)
            except concurrent.futures.CancelledError:  # closing while it waited for a place
                return
            except Exception:  # logged; the learner keeps the parameters they had
                log.exception("fitting FSRS parameters failed")

    def _next(self) -> str | None:
        with self._changed:
            while not self._queued and not self._closing:
                self._changed.wait()
            # Not while the writes go on: this thread's queries would take the interpreter and the
            # database from the requests being answered (measured: the median submission 20 → 50 ms).
            # After `settle` quiet seconds, or at the latest SETTLE_AT_MOST after a learner waits.
            latest = time.monotonic() + SETTLE_AT_MOST
            while not self._closing and (quiet := self._last_write + self.settle - time.monotonic()) > 0:
                if time.monotonic() >= latest:
                    break
                self._changed.wait(min(quiet, latest - time.monotonic()))
            if self._closing:
                return None
            learner = oldest(self.engine, list(self._queued)[:OLDEST_AMONG])
            del self._queued[learner]
            return learner

    def _maybe_fit(self, learner: str) -> None:
        if not fit_due(self.engine, learner, self.minimum):
            return  # most writes: a read, no lock taken
        with self._host_turn(), self._place():
            since = time.time()
            if not claim_fit(self.engine, learner, self.minimum, since):
                return  # no fit needed, or another worker is fitting them
            try:
                self._fit(learner)
            finally:
                release_fit(self.engine, learner, since)

    @contextlib.contextmanager
    def _host_turn(self):
        """Holds the host's fitting lock (waiting for another worker's fit to end)."""
        if self.host_lock is None:
            yield
            return
        with open(self.host_lock, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or the process dies
            yield

    def _place(self):
        if self._budget is None:
            return contextlib.nullcontext()
        return self._budget.slot_from_thread(self._loop, self._acquiring)

    def _fit(self, learner: str) -> None:
        # The database URL goes in the environment, not the command line (other users see that).
        env = {
            **os.environ,
            "CODECLOZE_FIT_URL": self.url,
            "CODECLOZE_FIT_PARENT": str(os.getpid()),
            "OMP_NUM_THREADS": "1",
        }
        self._process = subprocess.Popen(
            [sys.executable, "-m", "app.memory.fitting", learner], env=env, stdin=subprocess.DEVNULL
        )
        try:
            code = self._process.wait(FIT_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            code = self._process.wait()
        if code == 0:
            self.fitted += 1
            log.info("fitted FSRS parameters")
        elif self._closing:  # ended by close(): their next attempt after a start queues them again
            log.info("fitting FSRS parameters stopped with the server")
        else:
            log.warning("fitting FSRS parameters failed", extra={"exit_code": code})

    def close(self) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify()
        for future in list(self._acquiring):  # a fit waiting for a place of a loop that is ending
            future.cancel()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()


def die_with_parent(parent: int) -> None:
    """The fit ends when the server that started it does, even by kill -9 (its time limit is
    the server's to enforce)."""
    from app.sandbox import linux

    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the line above
        sys.exit(1)


if __name__ == "__main__":  # the fitting process: python -m app.memory.fitting LEARNER
    die_with_parent(int(os.environ["CODECLOZE_FIT_PARENT"]))
    os.nice(19)  # background work: on a busy host, learners' requests and jobs take the CPU first
    fit_learner(os.environ["CODECLOZE_FIT_URL"], sys.argv[1])
