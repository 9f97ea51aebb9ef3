"""Anki-style cloze markers in drill code: `{{c1::answer}}` or `{{c1::answer::hint}}`."""

import re

from ..i18n import _
from .model import Blank

MARKER = re.compile(r"\{\{c(\d+)::((?:(?!::|\}\}).)+?)(?:::((?:(?!\}\}).)*?))?\}\}")
# Anything that starts like a marker but did not match as a whole is malformed.
OPENING = re.compile(r"\{\{c\d*:")


def strip_cloze(marked: str) -> tuple[str, tuple[Blank, ...], list[tuple[int, str]]]:
    """Return the reference code, its blanks and (line, problem) pairs for malformed markers."""
    out: list[str] = []
    blanks: list[Blank] = []
    pos = 0
    for match in MARKER.finditer(marked):
        out.append(marked[pos : match.start()])
        start = sum(map(len, out))
        answer = match.group(2)
        out.append(answer)
        hint = (match.group(3) or "").strip() or None
        blanks.append(Blank(len(blanks), int(match.group(1)), start, start + len(answer), answer, hint))
        pos = match.end()
    out.append(marked[pos:])
    return "".join(out), tuple(blanks), _malformed(marked)


def _malformed(marked: str) -> list[tuple[int, str]]:
    leftover = MARKER.sub(lambda m: " " * len(m.group(0)), marked)
    return [
        (marked.count("\n", 0, m.start()) + 1, _("挖空标记格式不对：应为同一行内的 {{cN::答案}} 或 {{cN::答案::提示}}"))
        for m in OPENING.finditer(leftover)
    ]
