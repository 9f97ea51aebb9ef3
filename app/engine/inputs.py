"""What a blank shows: the learner's text and its verdict (never its answer: a learner asks the
server for that, which keeps that they did; app/memory/reveals.py). The <input> itself is
templates/_blank.html."""

from typing import NamedTuple

from ..i18n import _


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


def unit_names() -> dict[str, str]:
    """The masking units' names in the request's language (made per call, never at import)."""
    return {"token": _("单个词元"), "span": _("子表达式"), "line": _("整行")}


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
