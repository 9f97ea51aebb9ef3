"""The token review is FSRS's own: the same card as `Scheduler.review_card` gives, to the bit."""

import random
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from fsrs import Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from app.memory.schedule import reviewed, to_unix, token_card
from app.memory.token_review import review

START = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


def _schedulers() -> list[Scheduler]:
    rng = random.Random(7)
    fitted = [
        tuple(lo + (hi - lo) * rng.random() for lo, hi in zip(LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS))
        for _ in range(3)
    ]
    return [
        Scheduler(enable_fuzzing=False),
        Scheduler(desired_retention=0.8, enable_fuzzing=False),
        Scheduler(DEFAULT_PARAMETERS, 0.95, learning_steps=(), relearning_steps=(), enable_fuzzing=False),
        Scheduler(learning_steps=(timedelta(minutes=3),), relearning_steps=(), enable_fuzzing=False),
        *(Scheduler(p, 0.7 + 0.25 * rng.random(), enable_fuzzing=False) for p in fitted),
    ]


def _row(card) -> SimpleNamespace:
    return SimpleNamespace(
        state=card.state.value,
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=to_unix(card.due),
        last_review=to_unix(card.last_review),
    )


@pytest.mark.parametrize(
    "scheduler", _schedulers(), ids=lambda s: f"r{s.desired_retention:.2f}-{len(s.learning_steps)}"
)
def test_every_review_of_a_token_matches_the_library(scheduler):
    """Random histories: gaps from seconds to months (same-day and long-term branches), every
    rating, through learning, review and relearning."""
    rng = random.Random(hash(scheduler.parameters) & 0xFFFF)
    checked = set()
    for _ in range(300):
        row, at = None, START
        for _ in range(rng.randint(1, 12)):
            at += timedelta(seconds=rng.choice([5, 90, 700, 3600 * 5, 86400 * rng.uniform(0.5, 90)]))
            rating = rng.choice(list(Rating))
            expected = reviewed(None if row is None else token_card(row), rating, at, scheduler)
            got = review(row, rating, at, scheduler)
            assert got == (
                expected.state.value,
                expected.step,
                expected.stability,
                expected.difficulty,
                to_unix(expected.due),
                to_unix(expected.last_review),
            )
            checked.add((None if row is None else row.state, rating))
            row = _row(expected)
    states = {None, 2} | ({1} if scheduler.learning_steps else set()) | ({3} if scheduler.relearning_steps else set())
    assert checked == {(state, rating) for state in states for rating in Rating}  # every branch, every rating


def test_a_fuzzing_scheduler_is_left_to_the_library():
    scheduler = Scheduler(enable_fuzzing=True)
    row = None
    at = START
    for rating in (Rating.Good, Rating.Good, Rating.Good):
        at += timedelta(days=3)
        got = review(row, rating, at, scheduler)
        row = SimpleNamespace(**got._asdict())
    assert row.state == 2 and row.stability > 0  # graduated to review through the library's path
