"""Since when a learner has attempts: what decides whether their jobs count as a new id's."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from app.db.records import AttemptRecord
from app.learn.recording import attempt_store
from app.memory.history import KnownLearners

pytestmark = pytest.mark.app


def attempt(learner: str) -> AttemptRecord:
    return AttemptRecord(learner, "mlm-online-softmax", "v1", "random", 30, 1, {"s1": True})


def test_a_learner_is_settled_once_their_first_attempt_is_older_than_a_minute(tmp_path):
    store = attempt_store(f"sqlite:///{tmp_path / 'codecloze.db'}")
    now = datetime.now(UTC)
    try:
        store.commit([(1, attempt("yesterday"), now - timedelta(days=1)), (2, attempt("yesterday"), now)])
        store.commit([(3, attempt("just-now"), now - timedelta(seconds=5))])
        known = KnownLearners(store.engine)
        assert known.settled("yesterday") and abs(known.since("yesterday") - (now - timedelta(days=1)).timestamp()) < 1
        assert known.has_attempts("just-now") and not known.settled("just-now")
        assert known.since("nobody") is None and not known.settled("nobody") and not known.has_attempts("nobody")
        assert known.settled("just-now", seconds=1) and time.time() - known.since("just-now") >= 5
    finally:
        store.close()
