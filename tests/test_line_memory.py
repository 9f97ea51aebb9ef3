"""Whether a learner remembers by lines: the evidence their blanks leave, and the review it chooses."""

import math
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from app.db.records import AttemptRecord
from app.memory.calibration import SCALES, blank_terms
from app.memory.fsrs6 import recall
from app.memory.learner_model import learner_model, scheduler_for
from app.memory.line_memory import MIN_BLANKS, MIN_MISSES, ODDS, LineEvidence, freshest, lines_of
from app.memory.review import FRESH_SHARE, decode, review_mask, span_lines
from app.memory.state import TokenMemory
from app.memory.tables import models
from app.memory.update import apply_attempts
from bench.learning.sim import memory_engine
from tests.memory_helpers import SNIPPET, learner_of, practise

pytestmark = pytest.mark.app

NOW = datetime(2027, 1, 4, 9, tzinfo=UTC)
CODE = "a = b + c\nd = e * f\n"  # spans: a b + c on line 0, d e * f on line 1


def evidence(blanks: int, token: float, line: float, missed: int = MIN_MISSES) -> LineEvidence:
    return LineEvidence(blanks, (token,) * len(SCALES), (line,) * len(SCALES), missed)


def test_the_line_prediction_must_win_by_the_odds_on_enough_blanks():
    assert not LineEvidence().shared
    assert not evidence(MIN_BLANKS - 1, 10.0, 0.0).shared  # too few blanks, however clear
    assert not evidence(50, 10.0, 0.0, missed=MIN_MISSES - 1).shared  # all but recalled: says nothing of lines
    assert evidence(MIN_BLANKS, 10.0, 10.0 - ODDS - 0.01).shared
    assert not evidence(MIN_BLANKS, 10.0, 10.0 - ODDS + 0.01).shared
    assert not evidence(50, 0.0, 10.0).shared  # the token's own memory predicts better
    grown = evidence(MIN_BLANKS, 10.0, 5.0)
    assert LineEvidence.from_json(grown.to_json()) == grown
    assert LineEvidence.from_json({"blanks": 3, "token": [1.0], "line": [1.0]}) == LineEvidence()  # another grid


def attempt(engine, states: dict[int, bool], at: datetime) -> None:
    blanks = tuple(
        {"span": i, "key": f"s{i}", "expected": "x", "given": "x" if ok else "y", "state": "right" if ok else "wrong"}
        for i, ok in states.items()
    )
    marks = {b["key"]: ok for b, ok in zip(blanks, states.values())}
    record = AttemptRecord("ada", "snip", "v1", "random", 20, 1, marks, blanks=blanks, code=CODE)
    with engine.begin() as db:
        apply_attempts(db, [(0, record, at)])


def test_a_blank_is_line_evidence_only_when_a_line_mate_was_tested_after_it():
    assert lines_of(CODE) == (0, 0, 0, 0, 1, 1, 1, 1)
    engine = memory_engine()
    attempt(engine, {1: True, 5: True}, NOW)  # b (line 0) and e (line 1)
    attempt(engine, {3: True}, NOW + timedelta(days=1))  # c: b's line mate, after b
    attempt(engine, {1: False, 5: True}, NOW + timedelta(days=3))
    with engine.connect() as db:
        found = learner_model(db, "ada").lines
    assert found.blanks == 1 and found.missed == 1  # b (c was tested after it); e has no line mate tested since
    assert found.line[SCALES.index(1.0)] > found.token[SCALES.index(1.0)]  # a miss: c's fresher memory was wrong


def test_a_line_learners_review_spreads_its_blanks_over_the_lines():
    eligible = tuple(span for span, line in span_lines(CODE * 6).items())
    lines = span_lines(CODE * 6)
    old = (NOW - timedelta(days=2)).timestamp()
    memory = {i: TokenMemory(i, 0.5 if lines[i] < 2 else 30.0, old, 0.0, None, 1, 0, []) for i in eligible}
    per_token = review_mask("v1", eligible, 25, 3, memory, NOW, lines=lines)
    spread = review_mask("v1", eligible, 25, 3, memory, NOW, lines=lines, lines_shared=True)
    assert len(per_token.chosen) == len(spread.chosen) == 12
    assert max(Counter(lines[i] for i in per_token.chosen).values()) > 1  # the weak first two lines
    assert set(Counter(lines[i] for i in spread.chosen).values()) == {1}  # one blank on each of 12 lines
    on = {line: [i for i in eligible if lines[i] == line] for line in set(lines.values())}
    missed = {i: memory[i]._replace(missed=True) for i in (on[5][0], on[9][2])}  # each 1 of its line's 4
    for seed in range(5):
        again = review_mask("v1", eligible, 25, seed, {**memory, **missed}, NOW, lines=lines, lines_shared=True)
        assert set(missed) <= set(again.chosen)  # missed yesterday: back today, first
        assert set(Counter(lines[i] for i in again.chosen).values()) == {1}


def test_the_review_page_says_when_it_spreads_blanks_over_the_lines(client):
    practise(client, rate=30, seed=3, wrong=4)
    url = client.get(f"/s/{SNIPPET}/review?rate=30", follow_redirects=False).headers["location"]
    assert "按行记忆" not in client.get(url).text
    shared = evidence(MIN_BLANKS, 10.0, 0.0).to_json()
    with client.app.state.store.engine.begin() as db:
        stored = db.execute(models.select().where(models.c.learner == learner_of(client))).first().calibration
        db.execute(
            update(models)
            .where(models.c.learner == learner_of(client))
            .values(calibration={**(stored or {}), "lines": shared})
        )
    url = client.get(f"/s/{SNIPPET}/review?rate=30", follow_redirects=False).headers["location"]
    html = client.get(url).text
    assert "按行记忆" in html and "均匀地撒在各行" in html
    snippet = client.app.state.library.get(SNIPPET)
    lines, query = span_lines(snippet.code), dict(p.split("=", 1) for p in url.split("?", 1)[1].split("&"))
    eligible = frozenset(lines)
    chosen = (decode(query.get("low", ""), eligible) or ()) + (decode(query.get("new", ""), eligible) or ())
    # the blanks after the fresh share (a fifth, drawn uniformly) take a line each while lines are left
    spread = len(chosen) - round(len(chosen) * FRESH_SHARE)
    assert len({lines[i] for i in chosen}) >= min(spread, len(set(lines.values())))


def test_the_fast_paths_agree_with_the_plain_ones():
    """blank_terms reads the curve's constants once; freshest keeps each line's top two in place."""
    rng = random.Random(5)
    scheduler = scheduler_for(None, 0.9)
    for _ in range(200):
        days, stability, recalled = rng.uniform(0, 40), rng.uniform(0.05, 100), rng.random() < 0.5
        plain = [min(1 - 1e-4, max(1e-4, recall(scheduler, days / c, stability))) for c in SCALES]
        expected = [-math.log(p if recalled else 1 - p) for p in plain]
        assert blank_terms(scheduler, stability, days, recalled) == pytest.approx(expected, rel=1e-12)
    code = CODE * 5
    rows = {i: TokenMemory(i, 1.0, rng.choice([None, *range(50)]), 0.0, None, 1, 0, []) for i in range(40)}
    lines = lines_of(code)
    for line, top in freshest(code, rows).items():
        tested = sorted((r.last_review, i) for i, r in rows.items() if lines[i] == line and r.last_review is not None)
        assert [r.last_review for _i, r in top] == [t for t, _i in tested[::-1][:2]]
