"""The pieces behind the memory words, in process: when a token falls below the retention, how many
make code due, the evidence "known" needs, the learner's zone, and retry links the server refuses."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from app.memory.due import code_due, falls_below, threshold
from app.memory.fsrs6 import recall
from app.memory.learner_model import scheduler_for
from app.memory.update import spaced_recall
from app.web.zone import shown_time, zone_named
from tests.memory_helpers import SNIPPET, practise

pytestmark = pytest.mark.app

NOW = datetime(2027, 1, 4, 9, tzinfo=UTC)


def test_a_token_falls_below_the_retention_where_the_curve_crosses_it():
    for retention in (0.8, 0.9, 0.95):
        scheduler = scheduler_for(None, retention)
        when = falls_below(3.0, NOW.timestamp(), scheduler)
        days = (when - NOW.timestamp()) / 86400
        assert abs(recall(scheduler, days, 3.0) - retention) < 1e-9
    assert falls_below(3.0, 0, scheduler_for(None, 0.9)) == 3.0 * 86400  # FSRS: stability is the 90 % interval


def test_code_is_due_when_a_tenth_of_its_tested_tokens_slipped():
    assert [threshold(n) for n in (1, 9, 10, 11, 19, 20, 64)] == [1, 1, 1, 2, 2, 2, 7]
    scheduler = scheduler_for(None, 0.9)
    rows = [SimpleNamespace(stability=s, last_review=NOW.timestamp()) for s in [0.2] + [5.0] * 10 + [None]]
    assert code_due(rows, scheduler) == NOW + timedelta(days=5)  # one slip of eleven waits for company
    assert code_due(rows[:10], scheduler) == NOW + timedelta(days=0.2)  # one of ten is a tenth
    assert code_due([], scheduler) is None


def test_known_needs_a_recall_the_next_day_and_a_miss_takes_it_away():
    before = SimpleNamespace(last_review=NOW.timestamp(), spaced=None)
    assert spaced_recall(None, False, NOW.timestamp()) is None  # a first answer is no evidence
    assert spaced_recall(before, False, NOW.timestamp() + 3 * 3600) is None  # nor one hours later
    later = NOW.timestamp() + 20 * 3600
    assert spaced_recall(before, False, later) == later
    kept = SimpleNamespace(last_review=later, spaced=later)
    assert spaced_recall(kept, False, later + 60) == later and spaced_recall(kept, True, later + 60) is None


def test_the_learners_zone_is_one_the_tz_database_holds():
    assert zone_named("Asia/Shanghai") == ZoneInfo("Asia/Shanghai")
    for odd in ("", "Mars/Olympus_Mons", "../../etc/passwd", "x" * 100, "Asia/Shanghai\x00"):
        assert zone_named(odd) is UTC
    assert shown_time(NOW.timestamp(), zone_named("Asia/Shanghai")) == "2027-01-04 17:00"
    assert shown_time(NOW.isoformat(), UTC) == "2027-01-04 09:00 UTC"


def test_a_retry_link_the_server_did_not_make_is_refused(client):
    practise(client, rate=30, seed=5, wrong=2)
    version = client.app.state.library.get(SNIPPET).version
    base = f"/s/{SNIPPET}/retry?rate=30&v={version}&at=1800000000&miss=5.7"
    for query in ("", "&sig=", "&sig=abc", "&sig=%ff%fe", "&sig=" + "A" * 5000):
        response = client.get(base + query)
        assert response.status_code == 403 and "再练一次" in response.text, query
    assert client.get(f"/s/{SNIPPET}/retry?rate=30&v={version}&at=x&miss=5&sig=a").status_code == 403
    assert client.get(f"/s/{SNIPPET}/retry?rate=999&v={version}&at=1&miss=5&sig=a").status_code == 422
    assert client.get(f"/s/{SNIPPET}/retry?rate=30&v=nope&at=1&miss=5&sig=a").status_code == 404
    assert client.get(f"/s/{SNIPPET}/retry?rate=30&v={version}&at=1&miss=5&sig=a&lang=en").status_code == 403
