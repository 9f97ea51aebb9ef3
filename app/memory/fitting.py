"""Fitting FSRS parameters to one learner's own token reviews, away from every request.

The store tells the fitter which learners it just wrote; a thread of the fitter reads their
review counts and, for a learner with enough reviews and none fitted on as many yet, runs the
`fsrs` Optimizer in a separate process (it imports torch and runs for seconds: never in the
web process's event loop, never while a response waits). The parameters are stored, and every
later review, due date and review mask of that learner uses them (learner_model.py).
"""
import logging
import queue
import threading
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from multiprocessing import get_context

from sqlalchemy import select

from ..db.tables import attempts
from .learner_model import save_parameters
from .schedule import TOKEN_RATING, aware
from .tables import models

log = logging.getLogger("codecloze.memory")
REFIT_FACTOR = 2  # fit again once the reviews doubled since the last fit


def review_logs(db, learner: str) -> list:
    """Every token review of the learner as an fsrs ReviewLog (one card per snippet version and span)."""
    from fsrs import ReviewLog

    query = select(attempts.c.snippet_id, attempts.c.version, attempts.c.blanks, attempts.c.created_at).where(
        attempts.c.learner == learner, attempts.c.practice.is_(False)).order_by(attempts.c.created_at)
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
    from ..store import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as db:
            reviews = db.execute(select(models.c.reviews).where(models.c.learner == learner)).scalar() or 0
            logs = review_logs(db, learner)
        parameters = fitted_parameters(logs)
        with engine.begin() as db:
            save_parameters(db, learner, parameters, reviews, datetime.now(timezone.utc))
        return reviews
    finally:
        engine.dispose()


def needs_fit(reviews: int, fitted_reviews: int, minimum: int) -> bool:
    return minimum > 0 and reviews >= minimum and reviews >= REFIT_FACTOR * fitted_reviews


class Fitter:
    """One fitting process at a time; learners written meanwhile wait their turn (once each)."""

    def __init__(self, engine, url: str, minimum: int):
        self.engine, self.url, self.minimum = engine, url, minimum
        self._waiting: queue.Queue = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._thread = threading.Thread(target=self._run, name="fsrs-fitter", daemon=True)
        self.fitted = 0
        if minimum > 0:
            self._thread.start()

    def wrote(self, learners) -> None:
        """Called by the store after a batch commits: cheap, never waits."""
        if self.minimum <= 0:
            return
        with self._lock:
            for learner in set(learners) - self._queued:
                self._queued.add(learner)
                self._waiting.put(learner)

    def _run(self) -> None:
        while (learner := self._waiting.get()) is not None:
            with self._lock:
                self._queued.discard(learner)
            try:
                self._maybe_fit(learner)
            except Exception:  # logged; the learner keeps the parameters they had
                log.exception("fitting FSRS parameters failed")

    def _maybe_fit(self, learner: str) -> None:
        with self.engine.connect() as db:
            row = db.execute(select(models.c.reviews, models.c.fitted_reviews).where(
                models.c.learner == learner)).first()
        if row is None or not needs_fit(row.reviews, row.fitted_reviews, self.minimum):
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
        reviews = self._pool.submit(fit_learner, self.url, learner).result()
        self.fitted += 1
        log.info("fitted FSRS parameters", extra={"reviews": reviews})

    def close(self) -> None:
        if self._thread.is_alive():
            self._waiting.put(None)
            self._thread.join(timeout=5)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
