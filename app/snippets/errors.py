"""Problems found in a snippet file, each with the line it is on."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class SnippetInvalid(ValueError):
    """Every problem of one file at once, so an author can fix them in one pass."""

    def __init__(self, path: str, problems: list[Problem]):
        self.path = path
        self.problems = problems
        super().__init__("\n".join(f"{path}: {p}" for p in problems))
