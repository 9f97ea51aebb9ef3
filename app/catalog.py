"""Uploaded snippets: their texts and publish state in the database, served from the library.

Every change is committed first and shown to learners after: a write the database refuses
changes nothing, and a restart serves exactly what was confirmed.
"""
import logging
from pathlib import Path

from .db.snippet_rows import SnippetRows
from .snippets.errors import SnippetInvalid
from .snippets.files import decode
from .snippets.library import SnippetLibrary
from .snippets.model import Snippet
from .snippets.parse import SNIPPET_ID, parse_snippet, version_of

log = logging.getLogger("codecloze")


class Catalog:
    def __init__(self, rows: SnippetRows, library: SnippetLibrary):
        self.rows = rows
        self.library = library
        self.bundled: set[str] = set()
        self.uploaded: set[str] = set()

    def load(self) -> None:
        """Bring every uploaded snippet into the library (bundled ones are loaded already)."""
        self.bundled = {s.id for s in self.library.all(include_hidden=True)}
        for row in self.rows.uploaded():
            if row.id in self.bundled:
                continue  # a bundled snippet took this id since: the bundled file wins
            self._show(parse_snippet(row.source, row.id, f"{row.id}@{row.version}"), row.published)

    def is_uploaded(self, snippet_id: str) -> bool:
        return snippet_id in self.uploaded

    def is_published(self, snippet_id: str) -> bool:
        return self.library.is_visible(snippet_id)

    def save(self, snippet: Snippet) -> None:
        """A new snippet (a draft) or a new version of one, keeping its publish state."""
        published = self.is_uploaded(snippet.id) and self.is_published(snippet.id)
        self.rows.save(snippet.id, snippet.version, snippet.source, published)
        self._show(snippet, published)

    def set_published(self, snippet: Snippet, published: bool) -> None:
        self.rows.set_published(snippet.id, published)
        self.library.set_visible(snippet.id, published)

    def delete(self, snippet_id: str) -> None:
        """Gone for learners and teachers; its versions stay archived for past attempts."""
        self.rows.remove(snippet_id)
        self.uploaded.discard(snippet_id)
        self.library.remove(snippet_id)

    def _show(self, snippet: Snippet, published: bool) -> None:
        self.library.add(snippet, archived=True)
        self.library.set_visible(snippet.id, published)
        self.uploaded.add(snippet.id)


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
