"""Highlighted code with an <input> in place of each hole (Pygments classes, line by line)."""
from dataclasses import dataclass

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .score import Hole

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


def _pieces(code: str, holes: list[Hole]):
    """(css class, text) for code outside holes, and (None, hole) at each hole's start."""
    starts = {h.start: h for h in holes}
    cuts = sorted({0, len(code), *(h.start for h in holes), *(h.end for h in holes)})
    inside_until = -1
    for index, ttype, value in _LEXER.get_tokens_unprocessed(code):
        end = index + len(value)
        for a, b in _split(index, end, cuts):
            if a in starts:
                yield None, starts[a]
                inside_until = starts[a].end
            if a >= inside_until:
                yield _css_class(ttype), code[a:b]


def _split(start: int, end: int, cuts: list[int]):
    inner = [c for c in cuts if start < c < end]
    bounds = [start, *inner, end]
    return zip(bounds, bounds[1:])


def _input(hole: Hole, shown: HoleState) -> str:
    width = max(len(hole.answer), 2) + 1
    attrs = {
        "class": f"blank {shown.state}".strip(),
        "name": hole.key,
        "id": f"blank-{hole.key}",
        "value": shown.value,
        "style": f"--w:{width}",
        "autocomplete": "off", "autocapitalize": "off", "spellcheck": "false",
        "aria-label": hole.label,
        "data-state": shown.state,
    }
    if shown.reveal:
        attrs["data-answer"] = hole.answer
    if hole.hint:
        attrs["title"] = hole.hint
    tag = f'<span class="blank-tag" aria-hidden="true">{escape(hole.tag)}</span>' if hole.tag else ""
    html = tag + "<input " + " ".join(f'{k}="{escape(v)}"' for k, v in attrs.items()) + ">"
    if shown.reveal and shown.state not in ("right", "accepted"):
        html += f'<button type="button" class="reveal" data-for="blank-{escape(hole.key)}">?</button>'
    return html


def render_code(code: str, holes: list[Hole], shown: dict[str, HoleState] | None = None) -> Markup:
    """Code as `<span class="line">` rows of highlighted tokens and inputs."""
    shown = shown or {}
    lines: list[list[str]] = [[]]
    for css, item in _pieces(code, holes):
        if css is None:
            lines[-1].append(_input(item, shown.get(item.key, HoleState())))
            continue
        for i, part in enumerate(item.split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append(f'<span class="{css}">{escape(part)}</span>' if css else str(escape(part)))
    if lines and not lines[-1]:
        lines.pop()
    return Markup("".join(f'<span class="line">{"".join(parts)}\n</span>' for parts in lines))
