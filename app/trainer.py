"""A drill on a page: which holes a snippet shows in random-mask or fixed (cloze) mode."""
from dataclasses import dataclass
from functools import lru_cache

from .engine.mask import RATE_MAX, RATE_MIN, SEED_MAX, random_mask
from .engine.score import Hole
from .engine.tokens import eligible_spans
from .errors import UserError
from .i18n import _
from .snippets.model import Snippet

DEFAULT_RATE = 15  # BERT's masking rate


@dataclass(frozen=True)
class Drill:
    snippet: Snippet
    mode: str  # "random" | "fixed"
    holes: tuple[Hole, ...]
    eligible: int
    rate: int | None = None
    seed: int | None = None
    review: object | None = None  # memory.review.Review: why a review mask hides these spans


def random_drill(snippet: Snippet, rate: int, seed: int) -> Drill:
    holes = _mask_holes(snippet.code, snippet.version, rate, seed, _("空 %(n)s"))
    return Drill(snippet, "random", holes, len(_span_holes(snippet.code)), rate, seed)


def chosen_drill(snippet: Snippet, rate: int, seed: int, review) -> Drill:
    """A random-mode drill hiding the spans a review chose (`review.chosen`)."""
    spans = _span_holes(snippet.code)
    labels = _labels(_("空 %(n)s"), len(review.chosen))
    holes = tuple(Hole(*spans[i], labels[n]) for n, i in enumerate(review.chosen, start=1))
    return Drill(snippet, "random", holes, len(spans), rate, seed, review)


@lru_cache(maxsize=1024)
def _mask_holes(code: str, version: str, rate: int, seed: int, label: str) -> tuple[Hole, ...]:
    """The blanks of a mask; kept a while, since a learner submits the mask their page just showed."""
    spans = _span_holes(code)
    chosen = random_mask(version, len(spans), rate, seed)
    labels = _labels(label, len(chosen))  # the n-th blank of this mask
    return tuple(Hole(*spans[i], labels[n]) for n, i in enumerate(chosen, start=1))


@lru_cache(maxsize=64)
def _labels(template: str, count: int) -> tuple[str, ...]:
    return tuple(template % {"n": n} for n in range(count + 1))


@lru_cache(maxsize=256)
def _span_holes(code: str) -> tuple[tuple[str, int, int, str], ...]:
    """Key, start, end and answer of a blank at each eligible span."""
    return tuple((f"s{s.index}", s.start, s.end, s.text) for s in eligible_spans(code))


def fixed_drill(snippet: Snippet) -> Drill:
    holes = tuple(
        Hole(f"c{b.index}", b.start, b.end, b.answer, _("填空 %(n)s", n=b.group), b.hint, str(b.group))
        for b in snippet.blanks
    )
    return Drill(snippet, "fixed", holes, len(eligible_spans(snippet.code)))


def parse_rate(raw: str | None) -> int:
    if raw is None or raw == "":
        return DEFAULT_RATE
    try:
        rate = int(raw.strip().rstrip("%"))
    except ValueError:
        raise UserError(422, _("挖空率必须是 %(lo)s 到 %(hi)s 之间的整数（百分比），收到的是 “%(raw)s”。",
                               lo=RATE_MIN, hi=RATE_MAX, raw=raw[:40])) from None
    if not RATE_MIN <= rate <= RATE_MAX:
        raise UserError(422, _("挖空率必须在 %(lo)s%% 到 %(hi)s%% 之间，收到的是 %(rate)s%%。",
                               lo=RATE_MIN, hi=RATE_MAX, rate=rate))
    return rate


def parse_seed(raw: str) -> int:
    try:
        seed = int(raw.strip())
    except ValueError:
        raise UserError(422, _("seed 必须是整数，收到的是 “%(raw)s”。", raw=raw[:40])) from None
    if not 0 <= seed <= SEED_MAX:
        raise UserError(422, _("seed 必须在 0 到 %(max)s 之间。", max=SEED_MAX))
    return seed
