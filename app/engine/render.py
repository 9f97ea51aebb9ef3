"""Highlighted code with an <input> in place of each hole (Pygments classes, line by line)."""

from functools import lru_cache

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .cjk import lang_attribute
from .inputs import BLANK, HoleState, ascii_html, input_html, input_parts
from .score import Hole
from .tokens import candidate_spans

__all__ = ["BLANK", "HoleState", "render_code", "render_mask"]

_LEXER = PythonLexer(stripnl=False, ensurenl=False)


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
            # Chinese comments and strings say so (`lang`), on English pages too.
            parts = tuple(
                f'<span class="{css}"{lang_attribute(p)}>{escape(p)}</span>' if css and p else str(escape(p))
                for p in code[a:b].split("\n")
            )
            out.append((a, b, parts))
    return tuple(out)


@lru_cache(maxsize=128)
def _span_bounds(code: str) -> frozenset[int]:
    return frozenset(b for span in candidate_spans(code) for b in (span.start, span.end))


def _cuts(code: str, holes: list[Hole]) -> tuple[int, ...]:
    """Where pieces must be cut for these holes; the usual cuts (so cached pieces) when every
    hole starts and ends where a highlighted token does (a line from its `for`)."""
    bounds = _span_bounds(code)
    extra = {b for h in holes for b in (h.start, h.end)} - bounds - _lexer_bounds(code)
    return tuple(sorted(bounds | extra)) if extra else _sorted_bounds(code)


@lru_cache(maxsize=128)
def _lexer_bounds(code: str) -> frozenset[int]:
    return frozenset(b for index, _t, value in _LEXER.get_tokens_unprocessed(code) for b in (index, index + len(value)))


@lru_cache(maxsize=128)
def _sorted_bounds(code: str) -> tuple[int, ...]:
    return tuple(sorted(_span_bounds(code)))


def _span_indices(code: str, holes: list[Hole]) -> dict[int, tuple[Hole, int]] | None:
    """Holes by the candidate index they start at, with the index they end at; None when some
    hole does not start and end at candidate tokens (a line that starts with `for`)."""
    starts, ends = _bound_index(code)
    found = {}
    for hole in holes:
        first, last = starts.get(hole.start), ends.get(hole.end)
        if first is None or last is None:
            return None
        found[first] = (hole, last)
    return found


@lru_cache(maxsize=128)
def _bound_index(code: str) -> tuple[dict[int, int], dict[int, int]]:
    spans = candidate_spans(code)
    return {s.start: s.index for s in spans}, {s.end: s.index for s in spans}


@lru_cache(maxsize=128)
def _line_opens(code: str) -> tuple[str, ...]:
    """Each line's opening tag, with its indentation (`--i`) for the hanging indent of a
    wrapped long line (app.css)."""
    out = []
    for line in code.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        out.append(f'<span class="line" style="--i:{indent}">' if indent and line.strip() else '<span class="line">')
    return tuple(out)


@lru_cache(maxsize=128)
def _layout(code: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The highlighted code as HTML between candidate spans, HTML of each span, and the tail.

    A random mask then costs one join: a gap, then the span or its input, for each span.
    """
    spans, opens = candidate_spans(code), _line_opens(code)
    starts = {s.start: s for s in spans}
    gaps, span_html, current = [], [], [opens[0]]
    span_end, line = -1, 0
    for start, end, parts in _pieces(code, _sorted_bounds(code)):
        if start in starts:
            gaps.append("".join(current))
            current, span_end = [], starts[start].end
        current.append(parts[0])
        for part in parts[1:]:
            line += 1
            current += ["\n</span>", opens[line], part]
        if end == span_end:
            span_html.append("".join(current))
            current, span_end = [], -1
    tail = "".join(current)
    tail = tail.removesuffix(opens[-1]) if code.endswith("\n") else tail + "\n</span>"
    return tuple(gaps), tuple(span_html), tail


@lru_cache(maxsize=128)
def _flat(code: str) -> tuple[str, ...]:
    """gap 0, span 0, gap 1, span 1, …, tail: span i sits at 2 * i + 1."""
    gaps, spans, tail = _layout(code)
    return (*(x for pair in zip(gaps, spans) for x in pair), tail)


def render_mask(code: str, holes: dict[int, tuple[Hole, int]], shown: dict[str, HoleState]) -> Markup:
    """`render_code` for holes from candidate token to candidate token (keyed by the first's
    index): the fast path. The cached highlighted tokens are swapped for inputs (a span's
    other tokens and the gaps between them for nothing), then everything is joined once."""
    out, blanks = list(_flat(code)), _span_blanks(code)
    for index, (hole, last) in holes.items():
        state = shown.get(hole.key)
        if state is None and last == index and hole.key[0] == "s" and hole.hint is None and not hole.tag:
            before, after = blanks[index]  # a token mask's empty blank: all but its number is the span's
            out[2 * index + 1] = f"{before}{ascii_html(hole.label)}{after}"
        else:
            out[2 * index + 1] = input_html(hole, BLANK if state is None else state)
            out[2 * index + 2 : 2 * last + 2] = [""] * (2 * (last - index))
    return Markup("".join(out))


@lru_cache(maxsize=128)
def _span_blanks(code: str) -> tuple[tuple[str, str], ...]:
    """For each candidate span, its empty <input> before and after the blank's label."""
    parts = (input_parts(f"s{s.index}", s.text, None, "", "") for s in candidate_spans(code))
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
    for start, _end, parts in _pieces(code, _cuts(code, holes)):
        if start in starts:
            hole = starts[start]
            lines[-1].append(input_html(hole, shown.get(hole.key, BLANK)))
            inside_until = hole.end
        if start < inside_until:
            continue
        lines[-1].append(parts[0])
        for part in parts[1:]:
            lines.append([part])
    if lines and not "".join(lines[-1]):
        lines.pop()
    opens = _line_opens(code)
    return Markup("".join(f"{opens[n]}{''.join(parts)}\n</span>" for n, parts in enumerate(lines)))
