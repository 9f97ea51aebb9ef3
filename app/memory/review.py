"""The review mask: the chosen rate spent on the tokens this learner is likeliest to have forgotten.

Of the k = round(rate × eligible) blanks, FRESH_SHARE go to tokens never tested (so the whole
snippet gets covered), the rest to the tested tokens with the lowest recall probability at the
stated time; ties and the fresh pick come from a RNG seeded by (version, rate, seed). The chosen
span indices are part of the page's URL, so the URL alone reproduces the page; `at` and `seed`
in it state when and with what the choice was made.
"""
import random
from dataclasses import dataclass
from datetime import datetime

from ..engine.mask import blank_count
from .schedule import retrievability

FRESH_SHARE = 0.2
MAX_INDICES = 5000


@dataclass(frozen=True)
class Review:
    at: int  # unix time the memory was read
    low: tuple[int, ...]  # weakest tested tokens
    fresh: tuple[int, ...]  # tokens not tested before

    @property
    def chosen(self) -> tuple[int, ...]:
        return tuple(sorted(self.low + self.fresh))


def review_mask(version: str, eligible: tuple[int, ...], rate: int, seed: int, memory: dict,
                at: datetime) -> Review:
    """`eligible`: the span indices a blank may take; `memory`: span index → row with stability
    and last_review (see state.token_memory)."""
    k = blank_count(rate, len(eligible))
    rng = random.Random(f"review:{version}:{rate}:{seed}")
    allowed = set(eligible)
    tested = [(retrievability(row.stability, row.last_review, at), i) for i, row in sorted(memory.items())
              if i in allowed and row.stability is not None]
    fresh = [i for i in eligible if i not in memory or memory[i].stability is None]
    n_fresh = min(len(fresh), round(k * FRESH_SHARE))
    n_low = min(len(tested), k - n_fresh)
    n_fresh = min(len(fresh), k - n_low)
    tiebreak = {i: rng.random() for _, i in tested}
    low = sorted(tested, key=lambda t: (t[0], tiebreak[t[1]]))[:n_low]
    return Review(round(at.timestamp()), tuple(sorted(i for _, i in low)), tuple(sorted(rng.sample(fresh, n_fresh))))


def encode(indices: tuple[int, ...]) -> str:
    return ".".join(map(str, indices))


def decode(raw: str | None, eligible: frozenset[int]) -> tuple[int, ...] | None:
    """Span indices from a URL, or None when they are not a set of this snippet's spans."""
    if raw is None or len(raw) > 6 * MAX_INDICES:
        return None
    if raw == "":
        return ()
    parts = raw.split(".")
    if not all(p.isdigit() and len(p) < 6 for p in parts):
        return None
    indices = tuple(int(p) for p in parts)
    if len(set(indices)) != len(indices) or not eligible.issuperset(indices):
        return None
    return tuple(sorted(indices))
