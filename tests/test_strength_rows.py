"""Stored analyses on every database the app supports: progress never overwrites a finished run,
grading reads what it needs of complete analyses only, and an analysis made another way (an
older release's) counts as none."""

from datetime import UTC

import pytest

from app.db import strength_rows
from app.db.store import Store

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
JUDGED = {"tested": [3, 7], "survivors": {"7": ["y"]}}


@pytest.fixture
def engine(database_url):
    store = Store(database_url)  # migrates to head: table strength_analyses comes from 0006
    yield store.engine
    store.close()


def test_a_run_goes_from_running_to_complete_and_late_progress_changes_nothing(engine):
    assert strength_rows.load(engine, "s", "v1") is None
    assert strength_rows.judged(engine, "s", "v1") == (None, None)
    strength_rows.save(engine, "s", "v1", state="running", done=0, total=10)
    strength_rows.progress(engine, "s", "v1", 4, 10)
    assert strength_rows.load(engine, "s", "v1")["done"] == 4
    assert strength_rows.judged(engine, "s", "v1") == ("running", None)
    report = {"positions": [{"index": 3, "text": "x", "line_text": "y = x  # 注释", "state": "caught"}]}
    strength_rows.save(
        engine, "s", "v1", state="complete", done=10, total=10, caught=[3], judged=JUDGED, report=report, seconds=1.5
    )
    strength_rows.progress(engine, "s", "v1", 5, 10)  # a write that arrives after the end
    row = strength_rows.load(engine, "s", "v1")
    assert (row["state"], row["done"], row["report"], row["seconds"]) == ("complete", 10, report, 1.5)
    assert strength_rows.judged(engine, "s", "v1") == ("complete", JUDGED)
    assert strength_rows.judged(engine, "s", "v2") == (None, None)  # per version


def test_a_failed_run_credits_nothing_and_a_rerun_replaces_it(engine):
    strength_rows.save(engine, "s", "v1", state="failed", error="some mutants were not run in time", caught=[1])
    assert strength_rows.judged(engine, "s", "v1") == ("failed", None)
    strength_rows.save(engine, "s", "v1", state="running", done=0, total=0, caught=None, report=None, error=None)
    strength_rows.save(engine, "s", "v1", state="complete", caught=[1, 2], judged=JUDGED)
    assert strength_rows.judged(engine, "s", "v1") == ("complete", JUDGED)


def test_a_run_silent_for_long_was_interrupted_and_is_started_again(engine):
    from datetime import datetime

    from sqlalchemy import update

    strength_rows.save(engine, "s", "v1", state="running", done=3, total=10)
    assert strength_rows.judged(engine, "s", "v1") == ("running", None)
    with engine.begin() as db:
        db.execute(update(strength_rows.strength).values(updated_at=datetime.now(UTC) - strength_rows.STALE_AFTER * 2))
    assert strength_rows.judged(engine, "s", "v1") == (None, None)  # grading starts a new one
    assert strength_rows.load(engine, "s", "v1")["state"] == "failed"


def test_an_analysis_made_another_way_counts_as_none(engine):
    from sqlalchemy import update

    strength_rows.save(engine, "s", "v1", state="complete", caught=[1], judged=JUDGED, report={"positions": []})
    with engine.begin() as db:  # as an older release wrote it: "likely equivalent" counted as caught
        db.execute(update(strength_rows.strength).values(method=None))
    assert strength_rows.judged(engine, "s", "v1") == (None, None) and strength_rows.load(engine, "s", "v1") is None


def test_decisions_are_kept_attributed_once_each_and_withdrawn_with_who_and_when(engine):
    from app.db import strength_decisions
    from app.snippets.decisions import Anchor

    marked = Anchor("equivalent", "    shape = (max_batch_size, n_heads)", 0, 14, "max_batch_size", "n_heads")
    dead = Anchor("line", "        dist.all_reduce(x)", 1)
    with engine.begin() as db:
        first, new = strength_decisions.decide(db, "kv", "v1", marked, "教师 ab12cd")
        assert new and strength_decisions.decide(db, "kv", "v2", marked, "API") == (first, False)  # once each
        line, _new = strength_decisions.decide(db, "kv", "v1", dead, "API")
    with engine.connect() as db:
        kept = strength_decisions.in_force(db, "kv")
    assert [(d.anchor, d.decided_by, d.version) for d in kept] == [(marked, "教师 ab12cd", "v1"), (dead, "API", "v1")]
    assert all(d.decided_at.tzinfo is not None for d in kept)
    with engine.begin() as db:
        assert strength_decisions.withdraw(db, "kv", first, "API")
        assert not strength_decisions.withdraw(db, "kv", first, "API")  # once
        assert not strength_decisions.withdraw(db, "other", line, "API")  # another snippet's
    with engine.connect() as db:
        assert [d.id for d in strength_decisions.in_force(db, "kv")] == [line]
