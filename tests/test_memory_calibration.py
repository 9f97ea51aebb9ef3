"""A learner's clock: the time scale fitted from their blanks, kept in the attempts' transaction,
and read by the review mask."""

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from app.db.records import AttemptRecord
from app.memory.calibration import MIN_BLANKS, SCALES, Calibration, blank_term
from app.memory.fsrs6 import recall
from app.memory.learner_model import learner_model
from app.memory.policy import CHOSEN, gain, scores
from app.memory.schedule import SCHEDULER
from app.memory.tables import models
from app.memory.update import apply_attempts
from bench.learning.sim import memory_engine

pytestmark = pytest.mark.unit

NOW = datetime(2027, 3, 1, 12, tzinfo=UTC)


def row(stability: float, days_ago: float, missed: bool = False):
    return SimpleNamespace(stability=stability, last_review=NOW.timestamp() - days_ago * 86400, missed=missed)


def blanks_of(true_scale: float, n: int, missed: bool, rng: random.Random) -> list:
    """n blanks of a learner whose memory lasts `true_scale` times what the model says."""
    out = []
    for _ in range(n):
        r = row(rng.uniform(0.5, 10), rng.uniform(0.1, 8), missed)
        recalled = rng.random() < recall(SCHEDULER, (NOW.timestamp() - r.last_review) / 86400 / true_scale, r.stability)
        out.append(blank_term(r, recalled, NOW.timestamp(), SCHEDULER))
    return out


@pytest.mark.parametrize("true_scale", [1 / 4, 1.0, 4.0])
def test_the_scale_found_is_the_learners_own_for_each_kind(true_scale):
    rng = random.Random(7)
    found = Calibration().added(blanks_of(true_scale, 400, False, rng) + blanks_of(1 / true_scale, 400, True, rng))
    assert found.scale(False) == true_scale
    assert found.scale(True) == 1 / true_scale
    evidence = found.evidence()
    assert evidence["recalled"]["blanks"] == evidence["missed"]["blanks"] == 400
    if true_scale != 1.0:  # the fitted scale predicts these blanks better than the defaults
        assert evidence["recalled"]["loss_fitted"] < evidence["recalled"]["loss_default"]


def test_too_few_blanks_leave_the_clock_alone():
    few = Calibration().added(blanks_of(1 / 8, MIN_BLANKS - 1, False, random.Random(1)))
    assert few.scale(False) == 1.0 and few.scale(True) == 1.0
    enough = few.added(blanks_of(1 / 8, 60, False, random.Random(2)))
    assert enough.scale(False) < 1.0 and enough.scale(True) == 1.0


def test_a_token_without_stored_memory_predicts_nothing():
    assert blank_term(None, True, NOW.timestamp(), SCHEDULER) is None
    assert blank_term(SimpleNamespace(stability=None, last_review=None, missed=None), True, 0, SCHEDULER) is None


def test_the_json_keeps_everything_and_another_grid_starts_again():
    found = Calibration().added(blanks_of(1 / 4, 50, False, random.Random(3)))
    assert Calibration.from_json(found.to_json()) == found
    assert Calibration.from_json(None) == Calibration()
    assert (
        Calibration.from_json({"blanks": [5, 0], "recalled": [1, 0], "loss": [[1.0, 2.0], [0.0, 0.0]]}) == Calibration()
    )


def test_on_a_fast_clock_the_review_ranks_as_if_more_time_had_passed():
    rows = {0: row(4.0, 1.0), 1: row(20.0, 1.0), 2: row(1.0, 3.0, missed=True)}
    scaled = (1 / 4, 1 / 4)
    # a token a day old on a clock four times as fast is a token four days old at scale 1
    assert gain(SCHEDULER, rows[0], NOW.timestamp(), 7.0, scaled) == pytest.approx(
        gain(SCHEDULER, row(4.0, 4.0), NOW.timestamp(), 28.0)
    )
    calibrated = replace(CHOSEN, calibrated=True)
    assert scores(calibrated, rows, NOW) == scores(CHOSEN, rows, NOW)  # no scales given: the unscaled ranking
    assert scores(calibrated, rows, NOW, scales=scaled) != scores(CHOSEN, rows, NOW, scales=scaled)
    assert scores(replace(CHOSEN, calibrated=False), rows, NOW, scales=scaled) == scores(CHOSEN, rows, NOW)


def test_attempts_add_their_blanks_to_the_learners_calibration():
    engine = memory_engine()

    def attempt(states: dict, at: datetime) -> None:
        blanks = tuple(
            {
                "span": i,
                "key": f"s{i}",
                "expected": "x",
                "given": "x" if ok else "y",
                "state": "right" if ok else "wrong",
            }
            for i, ok in states.items()
        )
        record = AttemptRecord(
            "ada",
            "snip",
            "v1",
            "random",
            20,
            1,
            {b["key"]: ok for b, ok in zip(blanks, states.values())},
            blanks=blanks,
            code="",
        )
        with engine.begin() as db:
            apply_attempts(db, [(0, record, at)])

    attempt({0: True, 1: False, 2: True}, NOW)
    with engine.connect() as db:  # first tests: nothing stored to predict from
        assert learner_model(db, "ada").calibration == Calibration()
    attempt({0: True, 1: True, 2: False, 3: True}, NOW + timedelta(days=2))
    with engine.connect() as db:
        stored = learner_model(db, "ada").calibration
        raw = db.execute(select(models.c.calibration).where(models.c.learner == "ada")).scalar_one()
    assert stored.blanks == (2, 1) and stored.recalled == (1, 1)  # spans 0 and 2 last recalled, 1 last missed
    assert {k: v for k, v in raw.items() if k != "lines"} == stored.to_json() and len(raw["loss"][0]) == len(SCALES)
    assert raw["lines"]["blanks"] == 0  # code "": no lines to compare (tests/test_line_memory.py)
