"""Reading snippet files: their bytes as text, or the reason they are refused."""

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
