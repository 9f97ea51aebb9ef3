"""What every attempt records, how revealed and empty blanks count, and the FSRS ratings."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Rating
from sqlalchemy import select

from app.db.tables import attempts
from app.memory.schedule import snippet_rating
from tests.helpers import responses_of, right_answers
from tests.memory_helpers import card_row, learner_of, practise, token_rows

pytestmark = pytest.mark.app


def last_attempt(client):
    store = client.app.state.store
    with store.engine.connect() as db:
        return (
            db.execute(
                select(attempts)
                .where(attempts.c.learner == learner_of(client))
                .order_by(attempts.c.created_at.desc())
                .limit(1)
            )
            .first()
            ._asdict()
        )


def test_every_blank_is_recorded_with_span_expected_given_and_state(client):
    missed = practise(client, rate=30, seed=5, wrong=2, ms="25000", hints="1")
    row = last_attempt(client)
    assert (row["mode"], row["unit"], row["kinds"], row["rate"], row["seed"]) == (
        "random",
        "token",
        "names,literals,operators",
        30,
        5,
    )
    assert row["hints"] == 1 and row["seconds"] == 25.0 and row["practice"] is False
    assert row["outcome"] is None  # execution is off in these tests
    by_key = {b["key"]: b for b in row["blanks"]}
    assert set(by_key) == set(row["results"]) and row["total"] == len(by_key)
    for key, blank in by_key.items():
        assert blank["span"] == int(key[1:])
        assert blank["state"] == ("wrong" if key in missed else "right")
        assert blank["given"] == ("nope" if key in missed else blank["expected"])
    assert row["correct"] == row["total"] - 2


def test_time_on_task_is_bounded(client):
    for sent, stored in (("25000", 25.0), ("5", None), ("-3", None), ("99999999999", None), ("abc", None)):
        practise(client, seed=6, ms=sent)
        assert last_attempt(client)["seconds"] == stored, sent


def test_empty_and_revealed_blanks_never_count_as_recalled(client):
    form_keys = practise(client, seed=7, wrong=0)
    keys = sorted(last_attempt(client)["results"], key=lambda k: int(k[1:]))
    first, second = keys[:2]
    practise(client, seed=7, **{first: ""}, revealed=second)
    row = last_attempt(client)
    states = {b["key"]: b["state"] for b in row["blanks"]}
    assert states[first] == "empty" and states[second] == "revealed"  # the revealed one holds the right text
    assert row["results"][first] is False and row["results"][second] is False
    assert row["correct"] == row["total"] - 2 and form_keys == []
    memory = token_rows(client)
    assert memory[int(first[1:])].misses == 1 and memory[int(second[1:])].misses == 1


def test_an_attempt_after_reveal_all_is_practice_not_a_recall(client):
    snippet = client.app.state.library.get("ex3-blocked-matmul")
    answers = right_answers(client.app, "ex3-blocked-matmul")
    page = client.post("/s/ex3-blocked-matmul", data={"version": snippet.version, "reveal": "all"}).text
    assert '<input type="hidden" name="revealed" value="all">' in page
    client.post("/s/ex3-blocked-matmul", data={"version": snippet.version, **answers, "revealed": "all"})
    row = last_attempt(client)
    assert row["practice"] is True and row["correct"] == 0
    assert {b["state"] for b in row["blanks"]} == {"revealed"}
    card = card_row(client, "ex3-blocked-matmul")
    assert card.attempts == 1 and card.recalls == 0 and card.history == [] and card.best is None
    assert token_rows(client, "ex3-blocked-matmul") == {}  # no token memory from copied answers


def test_a_cloze_blank_records_the_range_of_spans_it_covers(client):
    snippet = client.app.state.library.get("ex2-online-softmax")
    client.post(
        "/s/ex2-online-softmax", data={"version": snippet.version, **right_answers(client.app, "ex2-online-softmax")}
    )
    row = last_attempt(client)
    spans = [b["span"] for b in row["blanks"]]
    assert any(isinstance(s, list) and s[0] < s[1] for s in spans), spans
    assert row["mode"] == "fixed" and {b["state"] for b in row["blanks"]} == {"right"}


def test_snippet_ratings_follow_the_outcome():
    assert snippet_rating(["right", "right"], "passed", 30.0) == Rating.Good
    assert snippet_rating(["right", "right"], "passed", 5.0) == Rating.Easy  # fast
    assert snippet_rating(["right", "right"], None, None) == Rating.Good  # execution off: token match decides
    assert snippet_rating(["right", "accepted"], "passed", 5.0) == Rating.Hard
    assert snippet_rating(["right", "wrong"], "failed", 5.0) == Rating.Again
    assert snippet_rating(["right", "empty"], "failed", 5.0) == Rating.Again
    assert snippet_rating(["right", "revealed"], "passed", 5.0) == Rating.Again
    assert snippet_rating(["right"], "failed", 30.0) == Rating.Hard


def test_a_missed_snippet_comes_back_sooner_than_a_recalled_one(client):
    from tests.site_client import SiteClient

    good, bad = SiteClient(client.app), SiteClient(client.app)
    for seed in (1, 2):
        practise(good, seed=seed, ms="60000")
        practise(bad, seed=seed, wrong=3, ms="60000")
    good_card, bad_card = card_row(good), card_row(bad)
    assert good_card.due > bad_card.due
    assert good_card.fsrs["stability"] > bad_card.fsrs["stability"]
    assert good_card.best == good_card.latest == 1.0 and bad_card.latest < 1.0


def test_self_rating_of_a_question_reviews_its_own_card(client):
    snippet = client.app.state.library.get("ex5-flash-backward")
    html = client.post(
        "/s/ex5-flash-backward",
        data={"version": snippet.version, "q0": "因为", "q1": "x", **right_answers(client.app, "ex5-flash-backward")},
    ).text
    attempt = int(re.search(r"/attempts/(\d+)/rating", html).group(1))
    assert client.post(f"/attempts/{attempt}/rating", data={"question": "1", "rating": "again"}).status_code == 200
    card = card_row(client, "ex5-flash-backward", "q1")
    assert card is not None and card.fsrs["state"] == 1
    due = client.get("/me", headers={"accept": "application/json"}).json()["due"]
    soon = datetime.now(UTC) + timedelta(minutes=2)
    assert card.due.replace(tzinfo=UTC) < soon
    assert all(d["kind"] in ("code", "question") for d in due)
    # A changed mind is recorded but does not review the card a second time.
    assert client.post(f"/attempts/{attempt}/rating", data={"question": "1", "rating": "easy"}).status_code == 200
    again = card_row(client, "ex5-flash-backward", "q1")
    assert again.attempts == card.attempts and again.due == card.due
    assert responses_of(client.app.state.store, attempt)[1]["rating"] == "easy"


def test_incremental_memory_equals_a_replay_of_the_stored_history(client):
    """Memory is kept incrementally; replaying the attempt rows from scratch gives the same state."""
    from app.memory.schedule import TOKEN_RATING, reviewed

    for seed, wrong in ((1, 3), (2, 0), (1, 5), (3, 1), (1, 0)):
        practise(client, rate=50, seed=seed, wrong=wrong)
    store = client.app.state.store
    with store.engine.connect() as db:
        history = db.execute(
            select(attempts).where(attempts.c.learner == learner_of(client)).order_by(attempts.c.created_at)
        ).all()
    replayed: dict[int, tuple] = {}
    for row in history:
        for blank in row.blanks:
            card, seen, misses = replayed.get(blank["span"], (None, 0, 0))
            card = reviewed(card, TOKEN_RATING[blank["state"]], row.created_at.replace(tzinfo=UTC))
            replayed[blank["span"]] = (card, seen + 1, misses + (blank["state"] != "right"))
    memory = token_rows(client)
    assert set(memory) == set(replayed)
    for span, (card, seen, misses) in replayed.items():
        kept = memory[span]
        assert (kept.seen, kept.misses, kept.state) == (seen, misses, card.state.value)
        assert abs(kept.stability - card.stability) < 1e-9 and abs(kept.difficulty - card.difficulty) < 1e-9
    snippet_card = card_row(client)
    accuracies = [r.correct / r.total for r in history]
    assert snippet_card.attempts == len(history) and snippet_card.best == max(accuracies)
    assert snippet_card.latest == accuracies[-1] and [h[1] for h in snippet_card.history] == [
        round(a, 4) for a in accuracies
    ]
