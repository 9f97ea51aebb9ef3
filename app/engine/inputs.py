"""A blank's <input>: the learner's text, its verdict, its label, and the answer it can reveal."""
import html
from functools import lru_cache
from typing import NamedTuple

from markupsafe import escape

from .. import i18n
from ..i18n import _
from .score import Hole


class HoleState(NamedTuple):
    """What the page shows in a hole: the learner's text and, once scored, the verdict."""
    value: str = ""
    state: str = ""  # "", "right", "accepted", "wrong", "revealed", "empty"
    reveal: bool = False  # a button reveals the answer (wrong and empty blanks of a scored page)


BLANK = HoleState()
ASKABLE = ("wrong", "empty")  # scored states whose input gets a button to reveal the answer


@lru_cache(maxsize=16384)
def input_parts(key: str, answer: str, hint: str | None, tag: str, state: str) -> tuple[str, str, str]:
    """A blank's <input> around the learner's text and its label, escaped once.

    Keyed by what the span and verdict fix, not by the blank's number in its mask ("空 7"),
    so a few thousand entries cover every mask of a snippet. The answer rides along
    (`data-answer`) so that a learner can ask for it; it is not shown until then.
    """
    # Keys are generated ([sc]\d+) and states come from a fixed set.
    tag_html = f'<span class="blank-tag" aria-hidden="true">{escape(tag)}</span>' if tag else ""
    before = f'{tag_html}<input class="blank{" " if state else ""}{state}" name="{key}" id="blank-{key}" value="'
    middle = (f'" style="--w:{max(len(answer), 2) + 1}" autocomplete="off" autocapitalize="off"'
              f' spellcheck="false" aria-label="')
    after = (f'" data-state="{state}"' + (f' title="{escape(hint)}"' if hint else "")
             + f' data-answer="{ascii_html(answer)}">')
    return before, middle, after


@lru_cache(maxsize=4096)
def _reveal_button(key: str, label: str, language: str) -> str:
    name = ascii_html(_("显示%(label)s的答案", label=label))
    return f'<button type="button" class="reveal" data-for="blank-{key}" aria-label="{name}" title="{name}">?</button>'


@lru_cache(maxsize=4096)
def ascii_html(text: str) -> str:
    # As ASCII ("&#31354; 3" for "空 3"): a block of ASCII code then stays a one-byte-per-character
    # string, which joins and encodes several times faster.
    return html.escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii")


def input_html(hole: Hole, shown: HoleState) -> str:
    before, middle, after = input_parts(hole.key, hole.answer, hole.hint, hole.tag, shown.state)
    # plain str throughout: formatting Markup costs more
    label = ascii_html(hole.label)
    button = _reveal_button(hole.key, hole.label, i18n.language()) if shown.reveal and shown.state in ASKABLE else ""
    return f"{before}{html.escape(shown.value)}{middle}{label}{after}{button}"
