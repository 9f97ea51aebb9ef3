"""Which tested tokens a review mask spends its blanks on: a score per token from the memory model.

Policies (bench/learning compares them on simulated learners; bench/RESULTS.md has the tables):
- "weakest": lowest recall probability first (the first review mask; it loses to random masks).
- "gain": the expected gain in recall at `horizon` days that testing the token now buys, from
  FSRS's own stability updates: R·R_h(S_recalled) + (1 − R)·R_h(S_forgotten) − R_h(S_now).
  Tokens about to slip gain most; tokens long forgotten or still fresh in memory gain little.
  The horizon is 7 days at the default desired retention (0.9) and follows FSRS's intervals for
  another: shorter for a higher retention (reviews come sooner), longer for a lower one.
- "gain_due": the same gain, tokens below the desired retention first.
- "slip": tokens below the desired retention with the highest recall first (about to slip).
Every order reads recall on the learner's own clock when `scales` are given (calibration.py):
(scale after a recall or a reading, scale after a miss), the learner's memory lasting so many
times what FSRS's stability says; a token's elapsed time and the horizon are divided by its scale.
A share of the blanks (`fresh`) goes to tokens never tested, and `spread` to a uniform draw over
the rest, so the whole snippet keeps being covered. With `first_seen` known (when the learner first
opened the snippet: they read every token then), a token never tested is scored as one read then
(FSRS's first stability for "good") and competes with the tested ones for the other blanks.
With `by_lines`, a learner whose own blanks say they remember by lines (line_memory.py) gets the
tested tokens' blanks spread over the lines instead (review.py).
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from fsrs import Rating, Scheduler

from .fsrs6 import days_to, recall, stability_after
from .schedule import SCHEDULER, new_card, reviewed
from .state import TokenMemory

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)  # any moment: FSRS's updates depend on elapsed time only


@dataclass(frozen=True)
class Policy:
    name: str
    order: str = "gain"  # gain | gain_due | weakest | slip
    fresh: float = 0.2  # share of the blanks for tokens never tested
    spread: float = 0.0  # share drawn uniformly from the tested tokens left
    horizon: float = 7.0  # days ahead the gain is counted at
    relearn: bool = False  # tokens whose last test was a miss first, until recalled once
    calibrated: bool = False  # on the learner's clock (calibration.py), not FSRS's as it stands
    relearn_share: float = 0.0  # of the tested tokens' blanks, at most this share for tokens last missed, first
    relearn_after: float = 0.0  # ... missed at least so many hours ago
    per_line: int = 0  # n > 0: the best n tokens of every line before the (n+1)-th best of any
    by_lines: bool = False  # a learner who remembers by lines (line_memory.py): blanks one per line


WEAKEST = Policy("weakest", order="weakest")
# Missed tokens come back in the next review a day later until recalled once (practice to
# criterion, Rawson & Dunlosky 2011): neutral in every simulated learner (bench/RESULTS.md), kept
# for what it promises the learner.
CHOSEN = Policy("gain-7d", order="gain", fresh=0.2, horizon=7.0, relearn_share=1 / 6, relearn_after=20, by_lines=True)


def read_once(span: int, first_seen: float, scheduler: Scheduler = SCHEDULER) -> TokenMemory:
    """What the model assumes of a token never tested: read once when the snippet was opened."""
    stability, difficulty = first_read(scheduler)
    return TokenMemory(span, stability, first_seen, 0.0, None, 0, 0, None, difficulty)


def first_read(scheduler: Scheduler) -> tuple[float, float]:
    """Stability and difficulty after a first "good" review of a new card."""
    return _first_read(scheduler.parameters)


@lru_cache(maxsize=256)  # by parameters: a review mask reads it for every token never tested
def _first_read(parameters: tuple) -> tuple[float, float]:
    card = reviewed(new_card(EPOCH), Rating.Good, EPOCH, Scheduler(parameters, enable_fuzzing=False))
    return card.stability, card.difficulty


def after_test(scheduler: Scheduler, stability: float, difficulty: float | None, days: float) -> tuple[float, float]:
    """The token's stability after a test `days` after its last one, recalled and forgotten."""
    d = first_read(scheduler)[1] if difficulty is None else difficulty
    return (
        stability_after(scheduler, stability, d, days, recalled=True),
        stability_after(scheduler, stability, d, days, recalled=False),
    )


UNSCALED = (1.0, 1.0)


def scale_of(row, scales: tuple[float, float]) -> float:
    """The learner's scale for this token: by whether its last test was a miss."""
    return scales[1] if getattr(row, "missed", None) else scales[0]


def gain(scheduler: Scheduler, row, at: float, horizon: float, scales: tuple[float, float] = UNSCALED) -> float:
    """Expected recall at `at` + `horizon` days with a test now, minus without one, on the
    learner's clock: after the test, the recalled branch runs at scales[0], the missed at scales[1]."""
    own = scale_of(row, scales)
    days = (at - row.last_review) / 86400
    r = recall(scheduler, days / own, row.stability)
    recalled, forgotten = after_test(scheduler, row.stability, getattr(row, "difficulty", None), days / own)
    tested = r * recall(scheduler, horizon / scales[0], recalled) + (1 - r) * recall(
        scheduler, horizon / scales[1], forgotten
    )
    return tested - recall(scheduler, (days + horizon) / own, row.stability)


def interval_ratio(scheduler: Scheduler, retention: float) -> float:
    """FSRS's interval at `retention` over its interval at 0.9 (the same for every stability)."""
    return days_to(scheduler, 1.0, retention) / days_to(scheduler, 1.0, 0.9)


def scores(
    policy: Policy,
    rows: dict,
    at: datetime,
    scheduler: Scheduler = SCHEDULER,
    retention: float = 0.9,
    scales: tuple[float, float] = UNSCALED,
) -> dict[int, float]:
    """Span index → priority (higher first) of each tested token; with `relearn`, every token
    missed at its last test ranks above the rest (successive relearning: re-test what was missed
    until it is recalled once, then space it; Rawson & Dunlosky 2011)."""
    ranked = _scores(policy, rows, at, scheduler, retention, scales if policy.calibrated else UNSCALED)
    if policy.relearn:
        return {i: s + 4.0 * bool(getattr(rows[i], "missed", False)) for i, s in ranked.items()}
    return ranked


def _scores(policy: Policy, rows: dict, at: datetime, scheduler: Scheduler, retention: float, scales) -> dict:
    now = at.timestamp()
    now_recall = {
        i: recall(scheduler, (now - row.last_review) / 86400 / scale_of(row, scales), row.stability)
        for i, row in rows.items()
    }
    if policy.order in ("gain", "gain_due"):
        due, horizon = policy.order == "gain_due", policy.horizon * interval_ratio(scheduler, retention)
        return {
            i: gain(scheduler, row, now, horizon, scales) + (due and now_recall[i] < retention)
            for i, row in rows.items()
        }
    if policy.order == "weakest":
        return {i: -r for i, r in now_recall.items()}
    return {i: (r if r < retention else -1.0 - r) for i, r in now_recall.items()}  # slip: due, highest first
