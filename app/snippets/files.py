"""Reading snippet files and writing them atomically."""
import os
import tempfile
from pathlib import Path

from .errors import Problem, SnippetInvalid

MAX_BYTES = 256 * 1024


def decode(data: bytes, path: str) -> str:
    """UTF-8 text of a snippet file, or SnippetInvalid for binary, oversized or other encodings."""
    if len(data) > MAX_BYTES:
        raise SnippetInvalid(path, [Problem(None, f"file is {len(data) // 1024} KB; the limit is {MAX_BYTES // 1024} KB")])
    if b"\x00" in data:
        raise SnippetInvalid(path, [Problem(None, "file is binary, not a Markdown text file")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise SnippetInvalid(path, [Problem(line, "file is not UTF-8 text")]) from None
    return text.replace("\r\n", "\n")


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
