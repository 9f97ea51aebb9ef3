"""The review mask (weakest tokens first, reproducible) and memory carried across a snippet edit."""

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest

from app.db.records import AttemptRecord
from app.db.snippet_rows import SnippetRows
from app.engine.mask import blank_count, random_mask
from app.engine.tokens import candidate_spans, eligible_spans
from app.learn.recording import attempt_store, record_attempt
from app.memory.review import FRESH_SHARE, decode, review_mask
from app.memory.schedule import SCHEDULER, new_card, retrievability
from app.memory.state import TokenMemory
from app.memory.versions import version_map
from tests.helpers import attempts_of, input_names
from tests.memory_helpers import SNIPPET, practise, token_rows

pytestmark = pytest.mark.app

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def memory_of(stabilities: dict[int, float], days_ago: float = 3.0) -> dict:
    at = (NOW - timedelta(days=days_ago)).timestamp()
    return {i: TokenMemory(i, s, at, 0.0, None, 1, 0, []) for i, s in stabilities.items()}


def test_retrievability_is_fsrs_forgetting_curve():
    card = new_card(NOW - timedelta(days=5))
    card, _ = SCHEDULER.review_card(card, 3, NOW - timedelta(days=5))
    last = card.last_review.timestamp()
    assert abs(retrievability(card.stability, last, NOW) - SCHEDULER.get_card_retrievability(card, NOW)) < 1e-9
    assert retrievability(None, None, NOW) is None
    hour = 3600
    assert retrievability(2.0, NOW.timestamp() - hour, NOW) > retrievability(2.0, NOW.timestamp() - 9 * hour, NOW)


def test_the_curve_and_its_interval_are_the_librarys_under_any_parameters():
    """app/memory/curve.py reads only the scheduler's public parameters; the library agrees with it
    on whole days (its retrievability) and on the interval it schedules after a review."""
    from fsrs import Card, Rating, Scheduler, State
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

    from app.memory.fsrs6 import interval, recall

    rng = random.Random(3)
    for _ in range(40):
        fitted = tuple(
            lo + (hi - lo) * rng.random() for lo, hi in zip(LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS)
        )
        scheduler = Scheduler(fitted, 0.7 + 0.25 * rng.random(), enable_fuzzing=False)
        stability, days = rng.uniform(0.05, 400), rng.randint(0, 300)
        card = Card(state=State.Review, stability=stability, difficulty=5.0, last_review=NOW - timedelta(days=days))
        assert abs(recall(scheduler, days, stability) - scheduler.get_card_retrievability(card, NOW)) < 1e-12
        after = scheduler.review_card(card, Rating.Good, NOW)[0]
        assert after.due - NOW == timedelta(days=interval(scheduler, after.stability))


def test_the_policys_updates_are_fsrs_reviews():
    """A token never tested is a card read once ("good"); after_test is the library's review of a
    card in review, recalled and forgotten, the same day and days later."""
    from fsrs import Card, Rating, State

    from app.memory.policy import after_test, read_once

    first = SCHEDULER.review_card(new_card(NOW), Rating.Good, NOW)[0]
    assert read_once(4, NOW.timestamp()).stability == first.stability
    assert read_once(4, NOW.timestamp()).difficulty == first.difficulty
    for days in (0.2, 3.0, 40.0):
        card = Card(state=State.Review, stability=6.0, difficulty=4.0, last_review=NOW - timedelta(days=days))
        expected = tuple(
            SCHEDULER.review_card(card, rating, NOW)[0].stability for rating in (Rating.Good, Rating.Again)
        )
        assert after_test(SCHEDULER, 6.0, 4.0, days) == expected
    assert after_test(SCHEDULER, 6.0, 4.0, 0.2)[0] != after_test(SCHEDULER, 6.0, 4.0, 3.0)[0]


def test_the_weakest_tokens_are_hidden_far_more_often_than_chance():
    eligible, rate = 64, 20
    rng = random.Random(1)
    stabilities = {i: rng.choice([0.2, 0.5, 30.0, 80.0]) for i in range(eligible)}  # every token tested
    weakest = {i for i, s in stabilities.items() if s == 0.2}
    memory, hits, chance = memory_of(stabilities), 0, 0
    for seed in range(300):
        chosen = set(review_mask("v1", tuple(range(eligible)), rate, seed, memory, NOW).chosen)
        hits += len(chosen & weakest)
        chance += len(set(random_mask("v1", eligible, rate, seed)) & weakest)
    assert hits > 2.5 * chance, (hits, chance)


def test_the_mask_mixes_in_a_share_of_fresh_tokens_and_spends_the_rate():
    eligible, rate = 84, 30
    memory = memory_of({i: 1.0 + i for i in range(40)})  # tokens 40… never tested
    review = review_mask("v1", tuple(range(eligible)), rate, 7, memory, NOW)
    k = blank_count(rate, eligible)
    assert len(review.chosen) == k and len(set(review.chosen)) == k
    assert len(review.fresh) == round(k * FRESH_SHARE) and all(i >= 40 for i in review.fresh)
    assert review.low == tuple(range(len(review.low)))  # the lowest stabilities, read 3 days after
    nothing = review_mask("v1", tuple(range(eligible)), rate, 7, {}, NOW)
    assert nothing.low == () and len(nothing.fresh) == k


def test_the_same_inputs_give_the_same_mask_and_the_url_reproduces_it(client):
    memory = memory_of({i: 1.0 for i in range(30)})  # all tied: the seed breaks ties
    one = review_mask("v1", tuple(range(64)), 20, 11, memory, NOW)
    assert one == review_mask("v1", tuple(range(64)), 20, 11, memory, NOW)
    assert one != review_mask("v1", tuple(range(64)), 20, 12, memory, NOW)
    practise(client, rate=30, seed=3, wrong=4)
    url = client.get(f"/s/{SNIPPET}/review?rate=20", follow_redirects=False).headers["location"]
    first, later = client.get(url).text, client.get(url).text
    assert input_names(first) == input_names(later) and input_names(first)
    assert "复习模式" in first and "的记忆状态挑了" in first and "按记忆模型估计" in first
    assert (
        first.count('name="low"') == 1
        and '<form class="drill" method="post" action="/s/mlm-online-softmax/review"' in first
    )


def test_a_review_submission_is_scored_and_stored_as_a_review(client):
    practise(client, rate=30, seed=3, wrong=4)
    url = client.get(f"/s/{SNIPPET}/review?rate=20", follow_redirects=False).headers["location"]
    query = dict(p.split("=", 1) for p in url.split("?", 1)[1].split("&"))
    snippet = client.app.state.library.get(SNIPPET)
    texts = {s.index: s.text for s in eligible_spans(snippet.code)}
    answers = {n: texts[int(n[1:])] for n in input_names(client.get(url).text)}
    html = client.post(f"/s/{SNIPPET}/review", data={"version": snippet.version, **query, **answers}).text
    assert f"<strong>{len(answers)} / {len(answers)}</strong>" in html
    modes = {
        r["mode"]
        for r in attempts_of(
            client.app.state.store, client.app.state.identity.learner_from(client.cookies.get("cc_learner"))
        )
    }
    assert modes == {"random", "review"}


def test_broken_review_urls_are_a_clear_422(client):
    base = f"/s/{SNIPPET}/review?rate=20&seed=1&v={client.app.state.library.get(SNIPPET).version}&at=1"
    for bad in ("&low=1.1&new=", "&low=99999&new=", "&low=a&new=", "&low=&new=", "&low=1&new=1", "&low=1"):
        response = client.get(base + bad)
        assert response.status_code == 422 and "复习链接" in response.text, bad
    assert decode("3.1.2", frozenset(range(5))) == (1, 2, 3) and decode("5", frozenset(range(5))) is None


EDITED_V1 = "def f(x):\n    y = x * 2\n    z = y + 1\n    return z\n"
EDITED_V2 = "def f(x):\n    y = x * 2\n    w = y - 7\n    return w\n"


def test_version_map_keeps_tokens_whose_text_and_neighbours_are_unchanged():
    old, new = candidate_spans(EDITED_V1), candidate_spans(EDITED_V2)
    mapping = version_map(EDITED_V1, EDITED_V2)
    pairs = {(old[a].text, new[b].text) for a, b in mapping.items()}
    assert ("f", "f") in pairs and ("x", "x") in pairs and ("2", "2") in pairs
    assert all(old[a].text == new[b].text for a, b in mapping.items())
    y_in_edited_line = [s.index for s in old if s.text == "y"][1]  # `y + 1` became `y - 7`
    assert y_in_edited_line not in mapping
    assert version_map(EDITED_V1, EDITED_V1) == {s.index: s.index for s in old}


def toy(code: str) -> str:
    """A snippet file whose drill code is `code`."""
    return f"---\ntitle: Toy\nsummary: s\nlevel: 1\n---\n\n```python\n{code}```\n\n```python check\npass\n```\n"


def test_an_edit_carries_memory_to_the_new_version(tmp_path):
    store = attempt_store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    rows = SnippetRows(store.engine)  # every version served is archived: memory reads old code there
    rows.keep_version("toy", "v1", toy(EDITED_V1))
    rows.keep_version("toy", "v2", toy(EDITED_V2))
    try:

        def attempt(version, code, states):
            texts = {s.index: s.text for s in candidate_spans(code)}
            blanks = tuple(
                {"span": i, "key": f"s{i}", "expected": texts[i], "given": "?", "state": s} for i, s in states.items()
            )
            asyncio.run(
                record_attempt(
                    store,
                    AttemptRecord(
                        "a" * 32,
                        "toy",
                        version,
                        "random",
                        50,
                        1,
                        {b["key"]: b["state"] == "right" for b in blanks},
                        blanks=blanks,
                        code=code,
                    ),
                )
            )

        old = candidate_spans(EDITED_V1)
        attempt("v1", EDITED_V1, {s.index: "wrong" for s in old})
        new = candidate_spans(EDITED_V2)
        attempt("v2", EDITED_V2, {0: "right"})  # the first attempt on the edited version
        from sqlalchemy import select

        from app.memory.tables import tokens

        with store.engine.connect() as db:
            rows = {r.span: r for r in db.execute(select(tokens).where(tokens.c.version == "v2"))}
        mapping = version_map(EDITED_V1, EDITED_V2)
        assert set(rows) == set(mapping.values()) | {0}
        for new_index in mapping.values():
            assert rows[new_index].text == new[new_index].text and rows[new_index].misses == 1
        assert rows[0].seen == 2  # carried over, then reviewed again
    finally:
        store.close()


def test_token_memory_counts_misses_per_span(client):
    missed = practise(client, rate=30, seed=3, wrong=3)
    rows = token_rows(client)
    assert {i for i, r in rows.items() if r.misses} == {int(k[1:]) for k in missed}
    assert all(r.wrong == ["nope"] for i, r in rows.items() if r.misses)
