"""Problems found in a snippet file, each with the file line (and column) it is on."""

from dataclasses import dataclass, replace

from ..i18n import _


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str
    column: int | None = None  # 1-based, in the file line's text
    text: str = ""  # that file line as written (filled in by `with_text`)
    field: str = ""  # the upload form's field it is about ("id"), when not the file's text

    def __str__(self) -> str:
        if not self.line:
            return self.message
        if self.column:
            return _("第 %(n)s 行第 %(col)s 列：%(msg)s", n=self.line, col=self.column, msg=self.message)
        return _("第 %(n)s 行：%(msg)s", n=self.line, msg=self.message)

    def as_json(self) -> dict:
        return {"line": self.line, "column": self.column, "text": self.text, "message": self.message}


def with_text(problems: list[Problem], source: str) -> list[Problem]:
    """Each problem with the text of its file line, as the author wrote it."""
    from .places import line_text

    return [replace(p, text=line_text(source, p.line)) if p.line and not p.text else p for p in problems]


class SnippetInvalid(ValueError):
    """Every problem of one file at once, so an author can fix them in one pass."""

    def __init__(self, path: str, problems: list[Problem]):
        self.path = path
        self.problems = problems
        super().__init__("\n".join(f"{path}: {p}" for p in problems))
