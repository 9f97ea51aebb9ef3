"""Highlighted code, cut where the blanks go (Pygments' token classes, line by line).

`code_parts` gives the HTML between the blanks, leaving out what each blank hides; the page's
template puts an <input> in each blank's place (templates/_blank.html). Code without blanks is
`code_html`.
"""

from bisect import bisect_right
from functools import lru_cache

from markupsafe import Markup, escape
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from .cjk import lang_attribute
from .inputs import BLANK, HoleState
from .score import Hole

__all__ = ["BLANK", "HoleState", "code_html", "code_parts"]

_LEXER = PythonLexer(stripnl=False, ensurenl=False)


def _css_class(ttype) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


@lru_cache(maxsize=128)
def tokens(code: str) -> tuple[tuple[int, str, str], ...]:
    """Start, CSS class and text of each token Pygments finds in `code`. Kept for the snippets
    being served: lexing is most of what showing a mask costs (bench/RESULTS.md), and every page
    of a snippet version lexes the same code."""
    return tuple((start, _css_class(ttype), text) for start, ttype, text in _LEXER.get_tokens_unprocessed(code))


def _line_open(line: str) -> str:
    """A line's opening tag, with its indentation (`--i`) for the hanging indent of a wrapped long
    line (app.css)."""
    indent = len(line) - len(line.lstrip(" "))
    return f'<span class="line" style="--i:{indent}">' if indent and line.strip() else '<span class="line">'


def code_parts(code: str, holes: list[Hole] | tuple[Hole, ...]) -> list[tuple[Markup, Hole | None]]:
    """The highlighted code as (HTML before a hole, that hole) pairs in order, then (the rest,
    None); a hole's own text is left out (a hole across lines joins them)."""
    starts = {h.start: h for h in holes}
    cuts = sorted({b for h in holes for b in (h.start, h.end)})
    opens = [_line_open(line) for line in code.split("\n")]
    parts: list[tuple[Markup, Hole | None]] = []
    current, line, filled, inside_until = [opens[0]], 0, False, -1
    for start, css, text in tokens(code):
        end = start + len(text)
        first = bisect_right(cuts, start)
        inner = [c for c in cuts[first:] if c < end] if first < len(cuts) and cuts[first] < end else []
        for a, b in zip([start, *inner], [*inner, end]):
            if a in starts:
                parts.append((Markup("".join(current)), starts[a]))
                current, filled, inside_until = [], True, starts[a].end
            if a < inside_until:
                continue
            pieces = code[a:b].split("\n")
            for n, piece in enumerate(pieces):
                if n:
                    line += 1
                    current += ["\n</span>", opens[line]]
                    filled = False
                if piece:
                    current.append(_piece(css, piece))
                    filled = True
    if filled:
        current.append("\n</span>")
    elif current:
        current.pop()  # the open of an empty last line (code ending in a newline)
    parts.append((Markup("".join(current)), None))
    return parts


def _piece(css: str, text: str) -> str:
    # Chinese comments and strings say so (`lang`), on English pages too.
    return f'<span class="{css}"{lang_attribute(text)}>{escape(text)}</span>' if css else str(escape(text))


def code_html(code: str) -> Markup:
    """Code without blanks (setup and check code, previews)."""
    [(html, _none)] = code_parts(code, ())
    return html
