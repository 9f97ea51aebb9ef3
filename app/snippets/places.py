"""Where something in a snippet's code is in its file: file line, column and that line's text.

The sandbox, the parser and the mutants speak of lines of a code block (its first line is 1)
and of the reference code, whose cloze markers are removed; an author edits the file. Every
problem, survivor and verdict is reported at a `Place` of the file, the same in the API, the
pages and the CLI.
"""

from collections.abc import Callable
from dataclasses import dataclass

from .cloze import MARKER
from .frontmatter import split_front_matter
from .sections import structure


@dataclass(frozen=True)
class Place:
    line: int  # 1-based file line
    column: int | None  # 1-based, in that line's text
    text: str  # the file line as written

    def as_json(self) -> dict:
        return {"line": self.line, "column": self.column, "text": self.text}


def file_lines(source: str) -> list[str]:
    return source.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


def line_text(source: str, line: int | None) -> str:
    lines = file_lines(source)
    return lines[line - 1] if line and 0 < line <= len(lines) else ""


def block_start(source: str, part: str) -> int | None:
    """The file line just before the first line of the setup, code or check block."""
    return block_starts(source).get(part)


def block_starts(source: str) -> dict[str, int]:
    """The file line just before the first line of each block the file has, by part."""
    split = split_front_matter(file_lines_text(source))
    if split is None:
        return {}
    body, offset = split[1], split[2]
    starts: dict[str, int] = {}
    for fence in structure(body)[0]:
        starts.setdefault(fence.kind, fence.first + offset + 1)
    return starts


def file_line_of(source: str) -> Callable[[str | None, int | None], int | None]:
    """`file_line` for the many lines of one report: the file is parsed once, not once a line
    (817 parses made loading the bundled analyses most of a server's start-up)."""
    starts = block_starts(source)
    return lambda part, line: starts[part] + line if part in starts and line else None


def file_lines_text(source: str) -> str:
    return "\n".join(file_lines(source))


def file_place(source: str, part: str | None, line: int | None, column: int | None = None) -> Place | None:
    """The file place of (line, column) of a block; for the drill code, columns of the
    reference code are moved past the cloze markers the file has on that line."""
    start = block_start(source, part) if part and line else None
    if start is None:
        return None
    text = line_text(source, start + line)
    if column is not None and part == "code":
        column = marked_column(text, column)
    return Place(start + line, column, text)


def marked_column(marked: str, column: int) -> int:
    """Column in a line with cloze markers of `column` in the same line without them."""
    shift = 0
    for match in MARKER.finditer(marked):
        start = match.start() - shift  # where the answer begins in the stripped line
        if column - 1 < start:
            break
        opening = match.start(2) - match.start()
        if column - 1 < start + len(match.group(2)):
            return column + shift + opening
        shift += len(match.group(0)) - len(match.group(2))
    return column + shift
