"""FSRS's review of one token, on the token row's own fields rather than a `Card`.

A submission reviews every token it masked (dozens), and `Scheduler.review_card` spent most of
its time copying cards and converting times (bench/RESULTS.md, issue 22). This is the same
review: the library's formulas (fsrs 6, `Scheduler` without fuzzing) with the same operations
in the same order, so it gives the same floats; `tests/test_token_review.py` holds it to
`Scheduler.review_card` on random cards, ratings, times and fitted parameters. A scheduler
with fuzzing goes through the library.
"""

import math
from datetime import datetime, timedelta
from functools import cache
from typing import NamedTuple

from fsrs import Rating, Scheduler, State
from fsrs.scheduler import MAX_DIFFICULTY, MIN_DIFFICULTY, STABILITY_MIN

from .schedule import from_unix, reviewed, to_unix, token_card

LEARNING, REVIEW, RELEARNING = State.Learning.value, State.Review.value, State.Relearning.value
AGAIN, HARD, GOOD, EASY = Rating.Again, Rating.Hard, Rating.Good, Rating.Easy


class Reviewed(NamedTuple):
    state: int
    step: int | None
    stability: float
    difficulty: float
    due: float  # unix seconds
    last_review: float


def review(row, rating: Rating, at: datetime, scheduler: Scheduler) -> Reviewed:
    """The token's memory after one review at `at`; `row` its stored memory (None: new)."""
    if scheduler.enable_fuzzing:
        return _by_library(row, rating, at, scheduler)
    p = scheduler.parameters
    if row is None:
        state, step, stability, difficulty, last = LEARNING, 0, None, None, None
    else:
        state, step, stability, difficulty = row.state, row.step, row.stability, row.difficulty
        last = from_unix(row.last_review)
    days = (at - last).days if last else None
    short_term = days is not None and days < 1
    if state == LEARNING and (stability is None or difficulty is None):
        stability, difficulty = max(p[rating - 1], STABILITY_MIN), _initial_difficulty(p, rating)
    elif short_term:
        stability, difficulty = _short_term_stability(p, stability, rating), _next_difficulty(p, difficulty, rating)
    else:
        r = _retrievability(scheduler, stability, at, last)
        stability, difficulty = (
            _next_stability(p, difficulty, stability, r, rating),
            _next_difficulty(p, difficulty, rating),
        )
    if state == REVIEW:
        state, step, interval = _after_review(scheduler, stability, rating)
    else:
        steps = scheduler.learning_steps if state == LEARNING else scheduler.relearning_steps
        state, step, interval = _after_steps(scheduler, state, step, steps, stability, rating)
    return Reviewed(state, step, stability, difficulty, to_unix(at + interval), to_unix(at))


def _by_library(row, rating: Rating, at: datetime, scheduler: Scheduler) -> Reviewed:
    card = reviewed(None if row is None else token_card(row), rating, at, scheduler)
    return Reviewed(
        card.state.value, card.step, card.stability, card.difficulty, to_unix(card.due), to_unix(card.last_review)
    )


def _after_review(scheduler: Scheduler, stability: float, rating: Rating) -> tuple[int, int | None, timedelta]:
    if rating == AGAIN and scheduler.relearning_steps:
        return RELEARNING, 0, scheduler.relearning_steps[0]
    return REVIEW, None, _days(scheduler, stability)


def _after_steps(scheduler, state: int, step: int, steps: tuple, stability: float, rating: Rating) -> tuple:
    """Learning or relearning: the next step, or graduation to review."""
    if not steps or (step >= len(steps) and rating != AGAIN):
        return REVIEW, None, _days(scheduler, stability)
    if rating == AGAIN:
        return state, 0, steps[0]
    if rating == HARD:
        if step == 0 and len(steps) == 1:
            return state, step, steps[0] * 1.5
        if step == 0:
            return state, step, (steps[0] + steps[1]) / 2.0
        return state, step, steps[step]
    if rating == GOOD and step + 1 < len(steps):
        return state, step + 1, steps[step + 1]
    return REVIEW, None, _days(scheduler, stability)


def _days(scheduler: Scheduler, stability: float) -> timedelta:
    interval = (stability / scheduler._FACTOR) * _retention_term(scheduler.desired_retention, scheduler._DECAY)
    return timedelta(days=min(max(round(interval), 1), scheduler.maximum_interval))


@cache
def _retention_term(retention: float, decay: float) -> float:
    return (retention ** (1 / decay)) - 1


def _retrievability(scheduler: Scheduler, stability, at: datetime, last: datetime | None) -> float:
    if last is None or stability is None:
        return 0
    elapsed = max(0, (at - last).days)
    return (1 + scheduler._FACTOR * elapsed / stability) ** scheduler._DECAY


def _initial_difficulty(p: tuple, rating: int, clamp: bool = True) -> float:
    difficulty = p[4] - (math.e ** (p[5] * (rating - 1))) + 1
    return min(max(difficulty, MIN_DIFFICULTY), MAX_DIFFICULTY) if clamp else difficulty


def _short_term_stability(p: tuple, stability: float, rating: int) -> float:
    increase = (math.e ** (p[17] * (rating - 3 + p[18]))) * (stability ** -p[19])
    if rating != AGAIN:
        increase = max(increase, 1.0)
    return max(stability * increase, STABILITY_MIN)


def _next_difficulty(p: tuple, difficulty: float, rating: int) -> float:
    delta = -(p[6] * (rating - 3))
    damped = difficulty + (10.0 - difficulty) * delta / 9.0
    reverted = p[7] * _initial_difficulty(p, EASY, clamp=False) + (1 - p[7]) * damped
    return min(max(reverted, MIN_DIFFICULTY), MAX_DIFFICULTY)


def _next_stability(p: tuple, difficulty: float, stability: float, r: float, rating: int) -> float:
    if rating == AGAIN:
        long_term = p[11] * (difficulty ** -p[12]) * (((stability + 1) ** (p[13])) - 1) * (math.e ** ((1 - r) * p[14]))
        next_stability = min(long_term, stability / (math.e ** (p[17] * p[18])))
    else:
        hard_penalty = p[15] if rating == HARD else 1
        easy_bonus = p[16] if rating == EASY else 1
        next_stability = stability * (
            1
            + (math.e ** (p[8]))
            * (11 - difficulty)
            * (stability ** -p[9])
            * ((math.e ** ((1 - r) * p[10])) - 1)
            * hard_penalty
            * easy_bonus
        )
    return max(next_stability, STABILITY_MIN)
