"""Judging an unproven answer again, on every database the app supports: the attempt, the class
counters and the learner's memory end as if the answer had been accepted at once, each answer is
judged again once, and nothing changes while the analysis is not complete."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.classes.fold import fold
from app.classes.tables import answers
from app.db import strength_rows
from app.db.records import AttemptRecord
from app.db.snippet_rows import SnippetRows
from app.db.tables import attempts
from app.engine.tokens import eligible_spans
from app.learn.recording import attempt_store, write_attempts
from app.learn.rejudging import recent, rejudge
from app.memory.tables import cards, tokens
from app.snippets.parse import parse_snippet

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
TEXT = "---\ntitle: t\nsummary: s\nlevel: 1\n---\n\n```python\ndef f(x, y):\n    return x * y\n```\n\n```python check\nassert f(2, 3) == 6\n```\n"
SNIPPET = parse_snippet(TEXT, "times")
X, TIMES = [s.index for s in eligible_spans(SNIPPET.code) if s.text in ("x", "*")][-2:]  # in `return x * y`
EARLY, LATE, LATER = (datetime(2027, 1, 4, 9, tzinfo=UTC) + timedelta(days=d) for d in (0, 1, 4))


@pytest.fixture
def store(database_url):
    store = attempt_store(database_url)
    SnippetRows(store.engine).keep_version(SNIPPET.id, SNIPPET.version, SNIPPET.source)
    yield store
    store.close()


def record(learner: str, state: str, given: str, practice: bool = False) -> AttemptRecord:
    blanks = (
        {"span": X, "key": "s1", "expected": "x", "given": given, "state": state},
        {"span": TIMES, "key": "s2", "expected": "*", "given": "+", "state": "wrong"},
    )
    return AttemptRecord(
        learner,
        SNIPPET.id,
        SNIPPET.version,
        "random",
        30,
        1,
        {"s1": False, "s2": False},
        "failed",
        blanks=blanks,
        practice=practice,
        unproven=state == "unproven",
        provisional=state == "unproven",
        code=SNIPPET.code,
    )


def right(learner: str) -> AttemptRecord:
    blanks = ({"span": X, "key": "s1", "expected": "x", "given": "x", "state": "right"},)
    return AttemptRecord(
        learner, SNIPPET.id, SNIPPET.version, "random", 30, 2, {"s1": True}, "passed", blanks=blanks, code=SNIPPET.code
    )


def write(store, batch: list) -> None:
    with store.engine.begin() as db:
        write_attempts(db, batch)


def memory(store, learner: str) -> tuple:
    with store.engine.connect() as db:
        kept = db.execute(select(tokens).where(tokens.c.learner == learner).order_by(tokens.c.span)).all()
        card = db.execute(select(cards).where(cards.c.learner == learner)).one()
    token_rows = [tuple(v for k, v in r._mapping.items() if k != "learner") for r in kept]
    return token_rows, (card.fsrs, card.best, card.latest, card.history, card.attempts, card.recalls, card.due)


def analysed(store, survivors: dict | None = None) -> None:
    judged = {"tested": [X, TIMES], "survivors": survivors or {}}
    strength_rows.save(store.engine, SNIPPET.id, SNIPPET.version, state="complete", judged=judged, report={})


def test_an_answer_accepted_later_leaves_record_counters_and_memory_as_if_accepted_at_once(store):
    early, direct = "e" * 32, "d" * 32
    # The same history, one judged unproven before the analysis, the other accepted at once.
    write(store, [(1, record(early, "unproven", "(x)"), EARLY), (2, record(direct, "accepted", "(x)"), EARLY)])
    write(store, [(3, right(early), LATE), (4, right(direct), LATE)])
    write(
        store, [(5, record(early, "wrong", "z", practice=True), LATER), (6, record(direct, "wrong", "z", True), LATER)]
    )
    fold(store.engine)  # the class counters count the first as unproven
    assert memory(store, early) != memory(store, direct)
    assert rejudge(store.engine, lambda *_: SNIPPET, SNIPPET.id) == 0  # no complete analysis: nothing yet

    analysed(store)
    assert rejudge(store.engine, lambda *_: SNIPPET, SNIPPET.id) == 1
    assert memory(store, early) == memory(store, direct)
    with store.engine.connect() as db:
        blanks = db.execute(select(attempts.c.blanks).where(attempts.c.id == 1)).scalar()
        counted = dict(
            db.execute(
                select(answers.c.state, func.sum(answers.c.count))
                .where(answers.c.given == "(x)")
                .group_by(answers.c.state)
            ).all()
        )
        told = recent(db, early, datetime(2000, 1, 1, tzinfo=UTC))
    assert [b["state"] for b in blanks] == ["accepted", "wrong"]
    assert counted.get("accepted") == 2 and not counted.get("unproven")
    assert [(r["snippet"], r["given"]) for r in told] == [(SNIPPET.id, "(x)")]
    assert rejudge(store.engine, lambda *_: SNIPPET, SNIPPET.id) == 0  # judged again once


def test_an_answer_the_check_still_cannot_tell_stays_unproven(store):
    learner = "u" * 32
    write(store, [(7, record(learner, "unproven", "(y)"), EARLY)])
    analysed(store, survivors={str(X): ["y"]})  # `y` for `x` survives at that position: it is weak
    assert rejudge(store.engine, lambda *_: SNIPPET, SNIPPET.id) == 0
    with store.engine.connect() as db:
        assert db.execute(select(attempts.c.blanks).where(attempts.c.id == 7)).scalar()[0]["state"] == "unproven"
