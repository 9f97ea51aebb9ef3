"""A blank's <input>: the learner's text, its verdict and its label (never its answer: a learner
asks the server for that, which keeps that they did; app/memory/reveals.py)."""

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
    state: str = ""  # "", "right", "accepted", "unproven", "wrong", "revealed", "empty"
    reveal: bool = False  # a button reveals the answer (wrong and empty blanks of a scored page)


BLANK = HoleState()
ASKABLE = ("wrong", "unproven", "empty")  # scored states whose input gets a button to reveal the answer
# A scored blank's mark, so that its state never shows by colour alone; its name is what a
# screen reader says after the blank (the same words as the legend under the score).
MARKS = {"right": "✓", "accepted": "≈", "unproven": "≉", "wrong": "✗", "empty": "∅", "revealed": "↩"}


def mark_names() -> dict[str, tuple[str, str]]:
    """state -> (mark, its name in the UI language), for the server's marks and app.js's."""
    names = {
        "right": _("匹配"),
        "accepted": _("运行接受"),
        "unproven": _("运行无法确认"),
        "wrong": _("错误"),
        "revealed": _("已显示"),
        "empty": _("未填"),
    }
    return {state: (mark, names[state]) for state, mark in MARKS.items()}


@lru_cache(maxsize=64)
def _mark_html(state: str, language: str) -> str:
    if state not in MARKS:
        return ""
    mark, name = mark_names()[state]
    return f'<span class="mark {state}" role="img" aria-label="{ascii_html(name)}">{mark}</span>'


@lru_cache(maxsize=16384)
def input_parts(key: str, answer: str, hint: str | None, tag: str, state: str) -> tuple[str, str, str]:
    """A blank's <input> around the learner's text and its label, escaped once.

    Keyed by what the span and verdict fix, not by the blank's number in its mask ("空 7"),
    so a few thousand entries cover every mask of a snippet. The answer gives only the width.
    """
    # Keys are generated ([sc]\d+) and states come from a fixed set.
    tag_html = f'<span class="blank-tag" aria-hidden="true">{escape(tag)}</span>' if tag else ""
    before = f'{tag_html}<input class="blank{" " if state else ""}{state}" name="{key}" id="blank-{key}" value="'
    middle = (
        f'" style="--w:{max(len(answer), 2) + 1}" autocomplete="off" autocapitalize="off"'
        f' spellcheck="false" aria-label="'
    )
    invalid = ' aria-invalid="true"' if state in ASKABLE else ""
    after = f'" data-state="{state}"{invalid}' + (f' title="{escape(hint)}"' if hint else "") + ">"
    return before, middle, after


@lru_cache(maxsize=4096)
def _reveal_button(key: str, label: str, language: str) -> str:
    name = ascii_html(_("显示%(label)s的答案", label=label))
    # A submit button of the drill form: without script it posts the form asking for this answer.
    return (
        f'<button type="submit" name="reveal" value="{key}" class="reveal" data-for="blank-{key}"'
        f' aria-label="{name}" title="{name}" formnovalidate>?</button>'
    )


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
    mark = _mark_html(shown.state, i18n.language()) if shown.state else ""
    return f"{before}{html.escape(shown.value)}{middle}{label}{after}{mark}{button}"
