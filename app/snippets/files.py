"""Reading snippet files and writing them atomically."""

import os
import tempfile
from pathlib import Path

from ..i18n import _
from .errors import Problem, SnippetInvalid

MAX_BYTES = 256 * 1024


def decode(data: bytes, path: str) -> str:
    """The text of a snippet file, or SnippetInvalid for binary, oversized or non-UTF-8 data."""
    if len(data) > MAX_BYTES:
        raise SnippetInvalid(
            path, [Problem(None, _("文件有 %(kb)s KB，上限是 %(max)s KB", kb=len(data) // 1024, max=MAX_BYTES // 1024))]
        )
    if b"\x00" in data:
        raise SnippetInvalid(path, [Problem(None, _("这是二进制文件，不是 Markdown 文本"))])
    try:
        return data.decode("utf-8")  # kept byte for byte: a download gives back the same file
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SnippetInvalid(path, [Problem(line, _("文件不是 UTF-8 编码的文本"))]) from None


def write_atomic(path: Path, text: str) -> None:
    """Temp file in the same dir, fsync, rename: readers see the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
