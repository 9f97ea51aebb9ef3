"""A course's `_index.md`: read and checked, and what it would do to the home page (its title,
intro and sections), told before it is done. An import changes the home page only when the
teacher asks for it."""

import re
from dataclasses import dataclass

from ..i18n import _
from ..snippets.course import INDEX, CourseIndex, parse_index
from ..snippets.errors import Problem, SnippetInvalid, with_text
from ..snippets.files import decode
from ..snippets.parse import version_of

UNKNOWN_SHOWN = 20  # ids named one by one; the rest are counted
_WORD = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class HomeChange:
    """The home page before and after an `_index.md`; `apply`: whether the import changes it."""

    apply: bool
    title_before: str
    title_after: str
    intro_changed: bool
    sections_changed: bool

    @property
    def changes_anything(self) -> bool:
        return self.title_before != self.title_after or self.intro_changed or self.sections_changed

    def as_json(self) -> dict:
        return {
            "apply": self.apply,
            "title": {"before": self.title_before, "after": self.title_after},
            "intro": "changed" if self.intro_changed else "unchanged",
            "sections": "changed" if self.sections_changed else "unchanged",
        }


def home_change(library, index: CourseIndex, apply: bool) -> HomeChange:
    """The change `index` makes to the home page `library` shows now."""
    return HomeChange(
        apply=apply,
        title_before=library.home_title,
        title_after=index.title,
        intro_changed=library.home_text != index.prose,
        sections_changed=tuple(library.home_sections) != index.sections,
    )


def read_index(files: dict[str, bytes], known: set[str], problems: dict, checked: bool):
    """(version, text, parsed) of `_index.md`, or None. When `checked` (it will be saved) its
    problems are filed under its name, unknown ids too; otherwise it is only described."""
    if INDEX not in files:
        return None
    found: list[Problem] = []
    try:
        text = decode(files[INDEX], INDEX)
    except SnippetInvalid as err:
        problems[INDEX] = err.problems if checked else []
        return None
    index = parse_index(text, found)
    if checked:
        found += _unknown_ids(text, index, known)
    problems[INDEX] = with_text(found, text) if checked else []
    return version_of(text), text, index


def _unknown_ids(text: str, index: CourseIndex, known: set[str]) -> list[Problem]:
    unknown = [snippet_id for snippet_id in dict.fromkeys(index.order) if snippet_id not in known]
    first_lines = _first_lines(text)  # one pass over the text, whatever the number of ids
    found = [
        Problem(
            first_lines.get(snippet_id),
            _("sections 里的 “%(id)s” 既不在导入的文件里，也不在服务器上。", id=snippet_id[:64]),
        )
        for snippet_id in unknown[:UNKNOWN_SHOWN]
    ]
    if len(unknown) > UNKNOWN_SHOWN:
        found.append(Problem(None, _("还有 %(n)s 个 id 也不存在。", n=len(unknown) - UNKNOWN_SHOWN)))
    return found


def _first_lines(text: str) -> dict[str, int]:
    """Each id-like word of the text → the first line it is on."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.split("\n"), 1):
        for word in _WORD.findall(line):
            out.setdefault(word, n)
    return out
