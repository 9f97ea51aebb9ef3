"""FSRS-6's published formulas, from a scheduler's public parameters.

The forgetting curve is R(t, S) = (1 + F·t/S)^(−w20), with F chosen so that R(S, S) = 0.9: the
stability is the interval at which recall falls to 90 % (w20 is the decay). The library computes it
only for whole days and a `Card`; a review mask and the forecast need it over fractional days
(tokens practised the same day still differ) and solved for the days.

`stability_after` is the stability update of `Scheduler.review_card` for a card in review: a
review mask weighs it, recalled and forgotten, for every tested token of the snippet, and the
library's call (a card copy, time checks, a log) made choosing the mask 3–4× slower than its
10 ms target (bench/RESULTS.md). tests/test_memory_review.py holds it to `review_card`.
"""

import math

from fsrs import Scheduler
from fsrs.scheduler import STABILITY_MIN


def decay(scheduler: Scheduler) -> float:
    return -scheduler.parameters[20]


def factor(scheduler: Scheduler) -> float:
    return 0.9 ** (1 / decay(scheduler)) - 1


def recall(scheduler: Scheduler, days: float, stability: float) -> float:
    """Predicted recall `days` after the last test of a memory of this stability."""
    return (1 + factor(scheduler) * max(0.0, days) / stability) ** decay(scheduler)


def days_to(scheduler: Scheduler, stability: float, retention: float | None = None) -> float:
    """Days until recall falls to `retention` (the scheduler's desired retention by default)."""
    target = scheduler.desired_retention if retention is None else retention
    return stability / factor(scheduler) * (target ** (1 / decay(scheduler)) - 1)


def interval(scheduler: Scheduler, stability: float) -> int:
    """The scheduler's next interval in whole days (rounded, at least 1, at most its maximum)."""
    return min(max(round(days_to(scheduler, stability)), 1), scheduler.maximum_interval)


def stability_after(scheduler: Scheduler, stability: float, difficulty: float, days: float, recalled: bool) -> float:
    """A reviewed memory's stability after a test `days` after its last one, rated good
    (recalled) or again: short-term the same day, else from its recall at that moment."""
    p = scheduler.parameters
    if days < 1:
        rating = 3 if recalled else 1
        increase = math.e ** (p[17] * (rating - 3 + p[18])) * stability ** -p[19]
        return max(stability * (max(increase, 1.0) if recalled else increase), STABILITY_MIN)
    r = recall(scheduler, days, stability)
    if recalled:
        grown = stability * (
            1 + math.e ** p[8] * (11 - difficulty) * stability ** -p[9] * (math.e ** ((1 - r) * p[10]) - 1)
        )
        return max(grown, STABILITY_MIN)
    long_term = p[11] * difficulty ** -p[12] * ((stability + 1) ** p[13] - 1) * math.e ** ((1 - r) * p[14])
    return max(min(long_term, stability / math.e ** (p[17] * p[18])), STABILITY_MIN)
