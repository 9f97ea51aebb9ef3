"""Highlighted code with an <input> in place of each hole (Pygments classes, line by line)."""
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .score import Hole
from .tokens import eligible_spans

_LEXER = PythonLexer(stripnl=False, ensurenl=False)


@dataclass(frozen=True)
class HoleState:
    """What the page shows in a hole: the learner's text and, once scored, the verdict."""
    value: str = ""
    state: str = ""  # "", "right", "accepted", "wrong", "revealed"
    reveal: bool = False  # put the answer on the input so the learner can reveal it


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
    return frozenset(b for span in eligible_spans(code) for b in (span.start, span.end))


def _cuts(code: str, holes: list[Hole]) -> tuple[int, ...]:
    bounds = _span_bounds(code)
    extra = {b for h in holes for b in (h.start, h.end)} - bounds
    return tuple(sorted(bounds | extra)) if extra else _sorted_bounds(code)


@lru_cache(maxsize=128)
def _sorted_bounds(code: str) -> tuple[int, ...]:
    return tuple(sorted(_span_bounds(code)))


def _input(hole: Hole, shown: HoleState) -> str:
    # Keys are generated ([sc]\d+); everything else is escaped.
    width = max(len(hole.answer), 2) + 1
    state = escape(shown.state)
    html = (f'<input class="blank{" " if state else ""}{state}" name="{hole.key}" id="blank-{hole.key}"'
            f' value="{escape(shown.value) if shown.value else ""}" style="--w:{width}" autocomplete="off" autocapitalize="off"'
            f' spellcheck="false" aria-label="{escape(hole.label)}" data-state="{state}"')
    if shown.reveal:
        html += f' data-answer="{escape(hole.answer)}"'
    if hole.hint:
        html += f' title="{escape(hole.hint)}"'
    html += ">"
    if hole.tag:
        html = f'<span class="blank-tag" aria-hidden="true">{escape(hole.tag)}</span>' + html
    if shown.reveal and shown.state not in ("right", "accepted"):
        html += f'<button type="button" class="reveal" data-for="blank-{hole.key}" aria-label="{escape(hole.label)}">?</button>'
    return html


def render_code(code: str, holes: list[Hole], shown: dict[str, HoleState] | None = None) -> Markup:
    """Code as `<span class="line">` rows of highlighted tokens and inputs."""
    shown = shown or {}
    starts = {h.start: h for h in holes}
    lines: list[list[str]] = [[]]
    inside_until = -1
    for start, end, parts in _pieces(code, _cuts(code, holes)):
        if start in starts:
            hole = starts[start]
            lines[-1].append(_input(hole, shown.get(hole.key, HoleState())))
            inside_until = hole.end
        if start < inside_until:
            continue
        lines[-1].append(parts[0])
        for part in parts[1:]:
            lines.append([part])
    if lines and not "".join(lines[-1]):
        lines.pop()
    return Markup("".join(f'<span class="line">{"".join(parts)}\n</span>' for parts in lines))
