"""The review mask: the chosen rate spent on the tokens where a test now helps memory most.

Of the k = round(rate × eligible) blanks, the policy's fresh share goes to tokens never tested
(so the whole snippet gets covered), the rest to the tested tokens the policy ranks first
(policy.py: by default the expected gain in recall a week ahead); ties and the fresh pick come
from a RNG seeded by (version, rate, seed). The chosen
span indices are part of the page's URL, so the URL alone reproduces the page; `at` and `seed`
in it state when and with what the choice was made.
"""

import math
import random
from dataclasses import dataclass, field
from datetime import datetime

from ..engine.mask import blank_count
from ..engine.tokens import eligible_spans
from .line_memory import lines_of
from .policy import CHOSEN, Policy, read_once, scores
from .schedule import SCHEDULER

FRESH_SHARE = CHOSEN.fresh
MAX_INDICES = 5000


@dataclass(frozen=True)
class Review:
    at: int  # unix time the memory was read
    low: tuple  # tested tokens the policy ranked first (span indices, or (first, last) of pieces)
    fresh: tuple  # tokens (or pieces) not tested before
    unit: str = "token"
    forecast: object | None = field(default=None, compare=False)  # forecast.Forecast, for the page
    why: object | None = field(default=None, compare=False)  # explain.Why: the blanks in the learner's history

    @property
    def chosen(self) -> tuple:
        return tuple(sorted(self.low + self.fresh))

    @property
    def low_text(self) -> str:
        return encode(self.low)

    @property
    def fresh_text(self) -> str:
        return encode(self.fresh)


def review_mask(
    version: str,
    eligible: tuple[int, ...],
    rate: int,
    seed: int,
    memory: dict,
    at: datetime,
    policy: Policy = CHOSEN,
    scheduler=SCHEDULER,
    retention: float = 0.9,
    first_seen: float | None = None,
    scales: tuple[float, float] = (1.0, 1.0),
    lines: dict[int, int] | None = None,
    lines_shared: bool = False,
) -> Review:
    """`eligible`: the span indices a blank may take; `memory`: span index → row with stability,
        difficulty and last_review (see state.token_memory); `first_seen`: unix time the learner
        first opened the snippet (then tokens never tested compete too, see policy.py); `scales`: the
    learner's clock (calibration.py); `lines`: span index → line (span_lines), for `policy.per_line`;
    `lines_shared`: the learner's memory runs by lines (line_memory.py): with `policy.by_lines`, the
    tested tokens' blanks go in a random order (the missed tokens' share first), one per line before a
    second on any: one test refreshes a line, and weak tokens piled on a line make it lapse."""
    at = whole_second(at)  # the time the URL states: the same mask again from it
    k = blank_count(rate, len(eligible))
    rng = random.Random(f"review:{version}:{rate}:{seed}")
    allowed = set(eligible)
    tested = {i: row for i, row in sorted(memory.items()) if i in allowed and row.stability is not None}
    fresh = [i for i in eligible if i not in tested]
    n_fresh = min(len(fresh), round(k * policy.fresh))
    picked_fresh = rng.sample(fresh, n_fresh)
    pool = dict(tested)
    if first_seen is not None:
        left = set(fresh) - set(picked_fresh)
        pool.update((i, read_once(i, min(first_seen, at.timestamp()), scheduler)) for i in fresh if i in left)
    n_rest = min(len(pool), k - n_fresh)
    tiebreak = {i: rng.random() for i in pool}
    score = scores(policy, pool, at, scheduler, retention, scales)
    ranked = sorted(pool, key=lambda i: (-score[i], tiebreak[i]))
    if policy.per_line and lines:
        ranked = line_by_line(ranked, lines, policy.per_line)
    missed = [i for i in ranked if getattr(pool[i], "missed", None)]
    if policy.relearn_after:
        missed = [i for i in missed if at.timestamp() - pool[i].last_review >= policy.relearn_after * 3600]
    n_missed = math.ceil(n_rest * policy.relearn_share)
    if spreads_over_lines(policy, lines_shared) and lines:  # in a random order: one per line, then a second
        ranked = line_by_line(missed_first(rng.sample(ranked, len(ranked)), missed, n_missed), lines)
    else:
        ranked = missed_first(ranked, missed, n_missed)
    n_spread = round(n_rest * policy.spread)
    rest = ranked[: n_rest - n_spread] + rng.sample(ranked[n_rest - n_spread :], n_spread)
    if len(rest) + n_fresh < k:  # fewer tested tokens than blanks: fresh ones fill the rest
        picked_fresh += rng.sample(
            [i for i in fresh if i not in picked_fresh], min(k - n_fresh - len(rest), len(fresh) - n_fresh)
        )
    low = tuple(sorted(i for i in rest if i in tested))
    return Review(round(at.timestamp()), low, tuple(sorted(set(picked_fresh) | (set(rest) - set(tested)))))


def spreads_over_lines(policy: Policy, lines_shared: bool) -> bool:
    """Whether this policy's review spreads its blanks over the lines for this learner."""
    return policy.by_lines and lines_shared


def span_lines(code: str) -> dict[int, int]:
    """Each eligible span's line number (from 0)."""
    lines = lines_of(code)
    return {s.index: lines[s.index] for s in eligible_spans(code)}


def line_by_line(ranked: list[int], lines: dict[int, int], per_round: int = 1) -> list[int]:
    """`ranked` reordered in rounds: each line's best `per_round` tokens, then its next ones, ...
    (each round in the ranking's order). Where a line is remembered as one unit, one test refreshes it."""
    place: dict[int, int] = {}
    rounds = []
    for i in ranked:
        line = lines.get(i, -1 - i)
        rounds.append(place.get(line, 0))
        place[line] = rounds[-1] + 1
    order = sorted(range(len(ranked)), key=lambda n: (rounds[n] // per_round, n))
    return [ranked[n] for n in order]


def missed_first(ranked: list[int], missed: list[int], n: int) -> list[int]:
    """`ranked` with the first `n` of `missed` (in ranked order) moved to the front: a missed token
    comes back in the next review until recalled once (practice to criterion), within a share."""
    first = missed[:n]
    chosen = set(first)
    return first + [i for i in ranked if i not in chosen]


def whole_second(at: datetime) -> datetime:
    return datetime.fromtimestamp(round(at.timestamp()), at.tzinfo)


def encode(indices: tuple) -> str:
    """`3.7.12` for tokens, `3-5.7-7` for pieces (first and last candidate index)."""
    return ".".join(f"{i[0]}-{i[1]}" if isinstance(i, tuple) else str(i) for i in indices)


def decode(raw: str | None, eligible: frozenset[int]) -> tuple[int, ...] | None:
    """Span indices from a URL, or None when they are not a set of this snippet's spans."""
    parts = _parts(raw)
    if parts is None or not all(p.isdigit() and len(p) < 6 for p in parts):
        return None
    indices = tuple(int(p) for p in parts)
    if len(set(indices)) != len(indices) or not eligible.issuperset(indices):
        return None
    return tuple(sorted(indices))


def decode_pieces(raw: str | None, valid: frozenset[tuple[int, int]]) -> tuple[tuple[int, int], ...] | None:
    """(first, last) pairs from a URL, or None when they are not non-overlapping pieces of `valid`."""
    parts = _parts(raw)
    if parts is None:
        return None
    pieces = []
    for part in parts:
        first, dash, last = part.partition("-")
        if not (dash and first.isdigit() and last.isdigit() and len(first) < 6 and len(last) < 6):
            return None
        pieces.append((int(first), int(last)))
    pieces.sort()
    if not valid.issuperset(pieces) or any(a[1] >= b[0] for a, b in zip(pieces, pieces[1:])):
        return None
    return tuple(pieces)


def _parts(raw: str | None) -> list[str] | None:
    if raw is None or len(raw) > 12 * MAX_INDICES:
        return None
    return [] if raw == "" else raw.split(".")
