"""A drill on a page: which holes a snippet shows in random-mask or fixed (cloze) mode."""

import re
from dataclasses import dataclass

from app.engine.mask import RATE_MAX, RATE_MIN, SEED_MAX, random_mask
from app.engine.score import Hole
from app.engine.tokens import DEFAULT_KINDS, KINDS, eligible_spans
from app.engine.units import UNITS, line_mask, line_pieces, span_mask
from app.errors import UserError
from app.i18n import _
from app.snippets.model import Snippet

DEFAULT_RATE = 15  # BERT's masking rate
DEFAULT_UNIT = "token"


@dataclass(frozen=True)
class Drill:
    snippet: Snippet
    mode: str  # "random" | "fixed"
    holes: tuple[Hole, ...]
    eligible: int  # tokens of the chosen kinds
    rate: int | None = None
    seed: int | None = None
    unit: str = DEFAULT_UNIT
    kinds: tuple[str, ...] = DEFAULT_KINDS
    hidden: int = 0  # eligible tokens inside the holes
    lines: int = 0  # lines a line mask draws from

    def ranges(self) -> dict[str, tuple[int, int]]:
        """First and last candidate index of each hole of a random mask (equal for a token)."""
        return {h.key: h.span for h in self.holes if h.span is not None}

    review: object | None = None  # memory.review.Review: why a review mask hides these spans


def mask_query(unit: str, kinds: tuple[str, ...]) -> str:
    """`&unit=…&kinds=…` for a URL, leaving out the defaults (units and kinds come from fixed sets)."""
    return ("" if unit == DEFAULT_UNIT else f"&unit={unit}") + (
        "" if kinds == DEFAULT_KINDS else f"&kinds={','.join(kinds)}"
    )


def random_drill(
    snippet: Snippet, rate: int, seed: int, unit: str = DEFAULT_UNIT, kinds: tuple[str, ...] = DEFAULT_KINDS
) -> Drill:
    holes, hidden = _mask_holes(snippet.code, snippet.version, unit, kinds, rate, seed)
    lines = len(line_pieces(snippet.code, kinds)) if unit == "line" else 0
    return Drill(
        snippet, "random", holes, len(eligible_spans(snippet.code, kinds)), rate, seed, unit, kinds, hidden, lines
    )


def chosen_drill(snippet: Snippet, rate: int, seed: int, review, pieces: dict | None = None) -> Drill:
    """A random-mode drill hiding the spans a review chose (`review.chosen`); for a review of
    spans or lines, `pieces` maps (first, last) to the unit's pieces."""
    spans = {hole[4][0]: hole for hole in _span_holes(snippet.code, DEFAULT_KINDS)}  # by span index
    if review.unit != DEFAULT_UNIT:
        chosen = [pieces[p] for p in review.chosen]
        labels = _labels(blank_name(), snippet.code, tuple(p.start for p in chosen))
        holes = tuple(
            Hole(f"s{p.first}", p.start, p.end, snippet.code[p.start : p.end], name, span=(p.first, p.last))
            for p, name in zip(chosen, labels)
        )
        lines = len(pieces) if review.unit == "line" else 0
        return Drill(
            snippet,
            "random",
            holes,
            len(spans),
            rate,
            seed,
            review.unit,
            hidden=sum(p.size for p in chosen),
            lines=lines,
            review=review,
        )
    picked = [spans[i] for i in review.chosen]
    labels = _labels(blank_name(), snippet.code, tuple(hole[1] for hole in picked))
    holes = tuple(Hole(*hole[:4], label, None, "", hole[4]) for hole, label in zip(picked, labels))
    return Drill(snippet, "random", holes, len(spans), rate, seed, hidden=len(holes), review=review)


def _mask_holes(
    code: str, version: str, unit: str, kinds: tuple[str, ...], rate: int, seed: int
) -> tuple[tuple[Hole, ...], int]:
    """The blanks of a mask and the eligible tokens they hide."""
    if unit == "token":
        spans = eligible_spans(code, kinds)
        chosen = [spans[i] for i in random_mask(version, len(spans), rate, seed)]
        labels = _labels(blank_name(), code, tuple(s.start for s in chosen))
        holes = tuple(
            Hole(f"s{s.index}", s.start, s.end, s.text, name, span=(s.index, s.index))
            for s, name in zip(chosen, labels)
        )
        return holes, len(chosen)
    mask = (span_mask if unit == "span" else line_mask)(code, version, kinds, rate, seed)
    labels = _labels(blank_name(), code, tuple(p.start for p in mask))
    holes = tuple(
        Hole(f"s{p.first}", p.start, p.end, code[p.start : p.end], name, span=(p.first, p.last))
        for p, name in zip(mask, labels)
    )
    return holes, sum(p.size for p in mask)


def blank_name() -> str:
    """A random mask's blank as a screen reader names it: its place in the mask and its line."""
    return _("第 %(n)s 空（共 %(total)s 个），第 %(line)s 行")


def _labels(template: str, code: str, starts: tuple[int, ...]) -> tuple[str, ...]:
    """The n-th blank's accessible name ("blank 3 of 12, line 7"), for blanks starting at `starts`."""
    return tuple(
        template % {"n": n, "total": len(starts), "line": _line(code, start)} for n, start in enumerate(starts, start=1)
    )


def _line(code: str, offset: int) -> int:
    """The line (from 1) that the character at `offset` is on."""
    return code.count("\n", 0, offset) + 1


def _span_holes(code: str, kinds: tuple[str, ...]) -> tuple[tuple, ...]:
    """Key (by candidate index), start, end, answer and span of a blank at each eligible token."""
    return tuple((f"s{s.index}", s.start, s.end, s.text, (s.index, s.index)) for s in eligible_spans(code, kinds))


def fixed_drill(snippet: Snippet) -> Drill:
    total = len({b.group for b in snippet.blanks})
    holes = tuple(
        Hole(
            f"c{b.index}",
            b.start,
            b.end,
            b.answer,
            _(
                "填空 %(n)s（共 %(total)s 个），第 %(line)s 行",
                n=b.group,
                total=total,
                line=_line(snippet.code, b.start),
            ),
            b.hint,
            str(b.group),
        )
        for b in snippet.blanks
    )
    return Drill(snippet, "fixed", holes, len(eligible_spans(snippet.code)))


def parse_rate(raw: str | None) -> int:
    if raw is None or raw == "":
        return DEFAULT_RATE
    rate = whole_number(raw.strip().removesuffix("%"), 3)
    if rate is None:
        raise UserError(
            _(
                "挖空率必须是 %(lo)s 到 %(hi)s 之间的整数（百分比），收到的是 “%(raw)s”。",
                lo=RATE_MIN,
                hi=RATE_MAX,
                raw=raw[:40],
            ),
        )
    if not RATE_MIN <= rate <= RATE_MAX:
        raise UserError(
            _("挖空率必须在 %(lo)s%% 到 %(hi)s%% 之间，收到的是 %(rate)s%%。", lo=RATE_MIN, hi=RATE_MAX, rate=rate)
        )
    return rate


def parse_seed(raw: str) -> int:
    text = raw.strip()
    seed = whole_number(text.removeprefix("-"), len(str(SEED_MAX)))
    if seed is None and not _DIGITS.match(text.removeprefix("-")):
        raise UserError(_("seed 必须是整数，收到的是 “%(raw)s”。", raw=raw[:40]))
    if seed is None or text.startswith("-") or seed > SEED_MAX:
        raise UserError(_("seed 必须在 0 到 %(max)s 之间。", max=SEED_MAX))
    return seed


_DIGITS = re.compile(r"[0-9]+\Z")


def whole_number(text: str, max_digits: int) -> int | None:
    """A non-negative integer written in ASCII digits only (no `2_0`, `+5`, `٣` or 5,000 digits)."""
    if not _DIGITS.match(text) or len(text.lstrip("0")) > max_digits:
        return None
    return int(text)


def parse_unit(raw: str | None) -> str:
    if raw is None or raw == "":
        return DEFAULT_UNIT
    if raw.strip() not in UNITS:
        raise UserError(_("挖空单位必须是 token、span 或 line 之一，收到的是 “%(raw)s”。", raw=raw[:40]))
    return raw.strip()


def parse_kinds(raw: str | None) -> tuple[str, ...]:
    """`names,literals,…` in any order, as the canonical tuple (KINDS order, no repeats)."""
    if raw is None or raw.strip() == "":
        return DEFAULT_KINDS
    asked = {k.strip() for k in raw.split(",") if k.strip()}
    unknown = sorted(asked - set(KINDS))
    if unknown or not asked:
        raise UserError(
            _(
                "挖空种类只能是 names、literals、operators、punctuation、annotations、docstrings、"
                "messages 的组合（逗号分隔），收到的是 “%(raw)s”。",
                raw=raw[:60],
            ),
        )
    return tuple(k for k in KINDS if k in asked)


def revealed_keys(holes: tuple[Hole, ...], fields: dict[str, str]) -> frozenset[str]:
    """The blanks whose answer the learner asked to see (`revealed=s3,s7`, sent by the page;
    `all` after "reveal all")."""
    raw = fields.get("revealed", "")
    if raw == "all":
        return frozenset(h.key for h in holes)
    keys = frozenset(k.strip() for k in raw.split(",") if k.strip())
    foreign = sorted(keys - {h.key for h in holes})
    if foreign:
        raise UserError(_("“revealed” 里有不属于这次遮盖的空：%(keys)s。", keys=", ".join(foreign[:10])[:200]))
    return keys
