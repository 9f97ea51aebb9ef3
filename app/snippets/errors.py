"""Problems found in a snippet file, each with the line it is on."""
from dataclasses import dataclass

from ..i18n import _


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str

    def __str__(self) -> str:
        return _("第 %(n)s 行：%(msg)s", n=self.line, msg=self.message) if self.line else self.message


class SnippetInvalid(ValueError):
    """Every problem of one file at once, so an author can fix them in one pass."""

    def __init__(self, path: str, problems: list[Problem]):
        self.path = path
        self.problems = problems
        super().__init__("\n".join(f"{path}: {p}" for p in problems))
