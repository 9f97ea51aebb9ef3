"""Snippet files of an install from before their texts moved into the database."""

import logging
from pathlib import Path

from ..snippets.errors import SnippetInvalid
from ..snippets.files import decode
from ..snippets.parse import SNIPPET_ID, version_of
from .snippet_rows import SnippetRows

log = logging.getLogger("codecloze")


def import_files(data_dir: Path, rows: SnippetRows) -> int:
    """Archive an older install's snippet files in the database; the number of texts read.

    The old index row (`snippets`) says which version was confirmed and stays the truth: a
    newer file beside it was an edit the server never confirmed (it wrote the file first), and
    a file without a row an upload it never confirmed; neither is served. Leftover temp files
    of interrupted writes are removed. Running it again changes nothing.
    """
    folder, archive = data_dir / "snippets", data_dir / "versions"
    for tmp in [*folder.glob(".*.tmp"), *archive.glob("*/.*.tmp")]:
        tmp.unlink(missing_ok=True)
    texts: dict[tuple[str, str], str] = {}
    for path in [*archive.glob("*/*.md"), *folder.glob("*.md")]:
        snippet_id = path.parent.name if path.parent != folder else path.stem
        try:
            text = decode(path.read_bytes(), str(path))
        except (OSError, SnippetInvalid):
            log.warning("not imported (unreadable): %s", path)
            continue
        if SNIPPET_ID.match(snippet_id):
            texts[snippet_id, version_of(text)] = text
    for (snippet_id, version), text in texts.items():
        rows.keep_version(snippet_id, version, text)
    return len(texts)
