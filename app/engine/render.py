"""Highlighted code with an <input> in place of each hole (Pygments classes, line by line)."""
import html
from functools import lru_cache
from typing import NamedTuple

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .score import Hole
from .tokens import candidate_spans

_LEXER = PythonLexer(stripnl=False, ensurenl=False)


class HoleState(NamedTuple):
    """What the page shows in a hole: the learner's text and, once scored, the verdict."""
    value: str = ""
    state: str = ""  # "", "right", "accepted", "wrong", "revealed"
    reveal: bool = False  # put the answer on the input so the learner can reveal it


BLANK = HoleState()


def _css_class(ttype) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


@lru_cache(maxsize=128)
def _pieces(code: str, cuts: tuple[int, ...]) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """Highlighted pieces of `code`, cut at every offset a hole may start or end.

    Each piece is (start, end, html per line part); cached, so a new mask costs one pass.
    """
    out = []
    for index, ttype, value in _LEXER.get_tokens_unprocessed(code):
        css = _css_class(ttype)
        inner = [c for c in cuts if index < c < index + len(value)] if len(value) > 1 else []
        bounds = [index, *inner, index + len(value)]
        for a, b in zip(bounds, bounds[1:]):
            parts = tuple(f'<span class="{css}">{escape(p)}</span>' if css and p else str(escape(p))
                          for p in code[a:b].split("\n"))
            out.append((a, b, parts))
    return tuple(out)


@lru_cache(maxsize=128)
def _span_bounds(code: str) -> frozenset[int]:
    return frozenset(b for span in candidate_spans(code) for b in (span.start, span.end))


def _cuts(code: str, holes: list[Hole]) -> tuple[int, ...]:
    bounds = _span_bounds(code)
    extra = {b for h in holes for b in (h.start, h.end)} - bounds
    return tuple(sorted(bounds | extra)) if extra else _sorted_bounds(code)


@lru_cache(maxsize=128)
def _sorted_bounds(code: str) -> tuple[int, ...]:
    return tuple(sorted(_span_bounds(code)))


def _span_indices(code: str, holes: list[Hole]) -> dict[int, Hole] | None:
    """Holes by candidate-span index, or None when some hole is not exactly one span."""
    index = _span_index(code)
    found = {index.get((h.start, h.end)): h for h in holes}
    return None if None in found else found


@lru_cache(maxsize=128)
def _span_index(code: str) -> dict[tuple[int, int], int]:
    return {(s.start, s.end): s.index for s in candidate_spans(code)}


@lru_cache(maxsize=16384)
def _input_parts(key: str, answer: str, hint: str | None, tag: str, state: str, reveal: bool) -> tuple[str, str, str]:
    """A blank's <input> around the learner's text and its label, escaped once.

    Keyed by what the span and verdict fix, not by the blank's number in its mask ("空 7"),
    so a few thousand entries cover every mask of a snippet.
    """
    # Keys are generated ([sc]\d+) and states come from a fixed set.
    tag_html = f'<span class="blank-tag" aria-hidden="true">{escape(tag)}</span>' if tag else ""
    before = f'{tag_html}<input class="blank{" " if state else ""}{state}" name="{key}" id="blank-{key}" value="'
    middle = (f'" style="--w:{max(len(answer), 2) + 1}" autocomplete="off" autocapitalize="off"'
              f' spellcheck="false" aria-label="')
    after = f'" data-state="{state}"' + (f' title="{escape(hint)}"' if hint else "")
    if not reveal:
        return before, middle, after + ">"
    after += f' data-answer="{escape(answer)}">'
    if state not in ("right", "accepted"):
        after += f'<button type="button" class="reveal" data-for="blank-{key}" aria-label="?">?</button>'
    return before, middle, after


@lru_cache(maxsize=1024)
def _escaped_label(label: str) -> str:
    # As ASCII ("&#31354; 3" for "空 3"): a block of ASCII code then stays a one-byte-per-character
    # string, which joins and encodes several times faster.
    return html.escape(label).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _input(hole: Hole, shown: HoleState) -> str:
    before, middle, after = _input_parts(hole.key, hole.answer, hole.hint, hole.tag, shown.state, shown.reveal)
    # plain str throughout: formatting Markup costs more
    return f"{before}{html.escape(shown.value)}{middle}{_escaped_label(hole.label)}{after}"


LINE_BREAK = '\n</span><span class="line">'


@lru_cache(maxsize=128)
def _layout(code: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The highlighted code as HTML between candidate spans, HTML of each span, and the tail.

    A random mask then costs one join: a gap, then the span or its input, for each span.
    """
    spans = candidate_spans(code)
    starts = {s.start: s for s in spans}
    gaps, span_html, current = [], [], ['<span class="line">']
    span_end = -1
    for start, end, parts in _pieces(code, _sorted_bounds(code)):
        if start in starts:
            gaps.append("".join(current))
            current, span_end = [], starts[start].end
        current.append(parts[0])
        for part in parts[1:]:
            current += [LINE_BREAK, part]
        if end == span_end:
            span_html.append("".join(current))
            current, span_end = [], -1
    tail = "".join(current)
    tail = tail.removesuffix('<span class="line">') if code.endswith("\n") else tail + "\n</span>"
    return tuple(gaps), tuple(span_html), tail


@lru_cache(maxsize=128)
def _flat(code: str) -> tuple[str, ...]:
    """gap 0, span 0, gap 1, span 1, …, tail: span i sits at 2 * i + 1."""
    gaps, spans, tail = _layout(code)
    return (*(x for pair in zip(gaps, spans) for x in pair), tail)


def render_mask(code: str, holes: dict[int, Hole], shown: dict[str, HoleState]) -> Markup:
    """`render_code` for holes that are candidate spans (keyed by span index): the fast path.

    The cached highlighted spans are swapped for inputs, then everything is joined once.
    """
    out, blanks = list(_flat(code)), _span_blanks(code)
    for index, hole in holes.items():
        state = shown.get(hole.key)
        if state is None and hole.key[0] == "s" and hole.hint is None and not hole.tag:
            before, after = blanks[index]  # a random mask's empty blank: all but its number is the span's
            out[2 * index + 1] = f"{before}{_escaped_label(hole.label)}{after}"
        else:
            out[2 * index + 1] = _input(hole, BLANK if state is None else state)
    return Markup("".join(out))


@lru_cache(maxsize=128)
def _span_blanks(code: str) -> tuple[tuple[str, str], ...]:
    """For each candidate span, its empty <input> before and after the blank's label."""
    parts = (_input_parts(f"s{s.index}", s.text, None, "", "", False) for s in candidate_spans(code))
    return tuple((before + middle, after) for before, middle, after in parts)


def render_code(code: str, holes: list[Hole], shown: dict[str, HoleState] | None = None) -> Markup:
    """Code as `<span class="line">` rows of highlighted tokens and inputs."""
    shown = shown or {}
    by_span = _span_indices(code, holes)
    if by_span is not None:
        return render_mask(code, by_span, shown)
    starts = {h.start: h for h in holes}
    lines: list[list[str]] = [[]]
    inside_until = -1
    for start, end, parts in _pieces(code, _cuts(code, holes)):
        if start in starts:
            hole = starts[start]
            lines[-1].append(_input(hole, shown.get(hole.key, BLANK)))
            inside_until = hole.end
        if start < inside_until:
            continue
        lines[-1].append(parts[0])
        for part in parts[1:]:
            lines.append([part])
    if lines and not "".join(lines[-1]):
        lines.pop()
    return Markup("".join(f'<span class="line">{"".join(parts)}\n</span>' for parts in lines))
