"""Review masks of spans and lines, the forecast beside them, and the desired retention on /me."""

from datetime import UTC

import pytest
from sqlalchemy import select

from app.engine.tokens import DEFAULT_KINDS
from app.engine.units import line_pieces
from app.memory.learner_model import learner_model
from app.memory.tables import models
from tests.helpers import input_names
from tests.memory_helpers import SNIPPET, learner_of, practise

pytestmark = pytest.mark.app


def review_location(client, unit: str, rate: int = 20) -> str:
    response = client.get(f"/s/{SNIPPET}/review?rate={rate}&unit={unit}", follow_redirects=False)
    assert response.status_code == 303
    return response.headers["location"]


def query_of(url: str) -> dict:
    return dict(p.split("=", 1) for p in url.split("?", 1)[1].split("&"))


def test_line_and_span_reviews_are_reproducible_from_their_url_and_scored(client):
    practise(client, rate=30, seed=3, wrong=4)
    snippet = client.app.state.library.get(SNIPPET)
    lines = {(p.first, p.last): p for p in line_pieces(snippet.code, DEFAULT_KINDS)}
    for unit in ("line", "span"):
        url = review_location(client, unit)
        query = query_of(url)
        assert query["unit"] == unit and "-" in query["low"] + query["new"]
        first, later = client.get(url), client.get(url)
        assert first.status_code == 200 and input_names(first.text) == input_names(later.text) != []
        assert f'name="unit" value="{unit}"' in first.text and first.text.count('name="unit"') == 1
        pieces = [tuple(map(int, p.split("-"))) for p in (query["low"] + "." + query["new"]).strip(".").split(".")]
        if unit == "line":
            assert set(pieces) <= set(lines)
        answers = {f"s{a}": snippet.code[pieces_start(snippet, unit, a, b)] for a, b in pieces}
        html = client.post(f"/s/{SNIPPET}/review", data={"version": snippet.version, **query, **answers}).text
        assert f"<strong>{len(answers)} / {len(answers)}</strong>" in html, unit


def pieces_start(snippet, unit, first, last):
    from app.memory.pieces import pieces_of

    piece = pieces_of(snippet.code, unit)[first, last]
    return slice(piece.start, piece.end)


def test_broken_piece_urls_are_a_clear_422(client):
    practise(client, rate=30, seed=3)
    query = query_of(review_location(client, "line"))
    base = f"/s/{SNIPPET}/review?rate=20&unit=line&seed=1&v={query['v']}&at=1"
    for bad in (
        "&low=1&new=",
        "&low=1-999&new=",
        "&low=a-b&new=",
        "&low=&new=",
        f"&low={query['low']}.{query['low']}&new=",
    ):
        response = client.get(base + bad)
        assert response.status_code == 422 and "复习链接" in response.text, bad
    assert client.get(f"/s/{SNIPPET}/review?rate=20&unit=lines").status_code == 422


def test_me_shows_the_forecast_and_the_retention_setting_drives_the_model(client):
    practise(client, rate=30, seed=3, wrong=4)
    page = client.get("/me").text
    assert "按记忆模型估计" in page and "7 天后" in page and 'name="retention"' in page
    data = client.get("/me", headers={"Accept": "application/json"}).json()
    entry = data["snippets"][0]
    assert 0 < entry["recall_week"] < entry["recall_now"] <= 1 and 0 <= entry["known"] <= entry["eligible"]
    assert data["memory"] == {"retention": 0.9, "fitted": False}
    assert client.post("/me/retention", data={"retention": "0.95"}, follow_redirects=False).status_code == 303
    store = client.app.state.store
    with store.engine.connect() as db:
        model = learner_model(db, learner_of(client))
        assert model.retention == 0.95 and model.scheduler.desired_retention == 0.95
    bad = client.post("/me/retention", data={"retention": "1.5"})
    assert bad.status_code == 422 and "目标记忆率" in bad.text
    with store.engine.connect() as db:
        assert db.execute(select(models.c.retention).where(models.c.learner == learner_of(client))).scalar() == 0.95


def test_due_dates_follow_the_desired_retention():
    from datetime import datetime
    from types import SimpleNamespace

    from fsrs import Card, Rating, State

    from app.memory.learner_model import scheduler_for
    from app.memory.summary import due_at

    at = datetime(2027, 1, 4, tzinfo=UTC)
    card = Card(state=State.Review, stability=10.0, difficulty=5.0, due=at, last_review=at)
    row = SimpleNamespace(fsrs=card.to_dict(), due=at)
    lax, default, strict = (due_at(row, scheduler_for(None, r)) for r in (0.8, 0.9, 0.95))
    assert lax > default > strict > at
    assert (default - at).days == 10  # R(t = S) = 0.9: due when a stability's worth of days passed
    learning = scheduler_for(None, 0.9).review_card(Card(), Rating.Good, at)[0]
    assert due_at(SimpleNamespace(fsrs=learning.to_dict(), due=learning.due), scheduler_for(None, 0.95)) == learning.due


def test_the_review_policy_follows_the_desired_retention():
    import random
    from datetime import datetime, timedelta

    from app.memory.learner_model import scheduler_for
    from app.memory.policy import CHOSEN, interval_ratio
    from app.memory.review import review_mask
    from app.memory.state import TokenMemory

    now, rng = datetime(2027, 1, 4, tzinfo=UTC), random.Random(3)
    memory = {
        i: TokenMemory(
            i,
            rng.choice([0.5, 2.0, 8.0, 30.0]),
            (now - timedelta(days=rng.uniform(0, 20))).timestamp(),
            0.0,
            None,
            1,
            0,
            None,
            5.0,
        )
        for i in range(80)
    }

    def mask(retention):
        return review_mask(
            "v1", tuple(range(80)), 20, 1, memory, now, scheduler=scheduler_for(None, retention), retention=retention
        ).chosen

    assert mask(0.9) == review_mask("v1", tuple(range(80)), 20, 1, memory, now).chosen  # the benchmarked default
    assert len({mask(0.8), mask(0.9), mask(0.95)}) == 3
    assert interval_ratio(scheduler_for(None, 0.9), 0.95) < 1 < interval_ratio(scheduler_for(None, 0.9), 0.8)
    assert CHOSEN.horizon == 7.0


def test_a_relearning_policy_ranks_every_missed_token_first():
    """The candidate the learning benchmark measured against the chosen policy (bench/RESULTS.md)."""
    from dataclasses import replace
    from datetime import datetime, timedelta

    from app.memory.policy import CHOSEN, scores
    from app.memory.state import TokenMemory

    now = datetime(2027, 1, 4, tzinfo=UTC)
    base = TokenMemory(0, 2.0, (now - timedelta(days=2)).timestamp(), 0.0, None, 1, 0, None, 5.0)
    rows = {i: base._replace(span=i, stability=0.5 + i, missed=i in (7, 9)) for i in range(10)}
    chosen = scores(CHOSEN, rows, now)
    relearn = scores(replace(CHOSEN, relearn=True), rows, now)
    assert set(sorted(relearn, key=relearn.get)[-2:]) == {7, 9}
    assert set(sorted(chosen, key=chosen.get)[-2:]) != {7, 9}  # the gain alone ranks them elsewhere
    assert all(relearn[i] == chosen[i] for i in rows if i not in (7, 9))
