"""Uploaded snippets: text in files under the data dir, publish state in the database.

The file is written first (atomically) and is the truth for content; the index row follows.
A crash between the two leaves a complete file and, at worst, the previous publish state.
"""
from pathlib import Path

from .snippets.files import decode, write_atomic
from .snippets.library import SnippetLibrary
from .snippets.model import Snippet
from .snippets.parse import parse_snippet
from .store import SnippetIndex


class Catalog:
    def __init__(self, folder: Path, index: SnippetIndex, library: SnippetLibrary):
        self.folder = folder
        self.index = index
        self.library = library
        self.bundled: set[str] = set()

    def load(self) -> None:
        """Bring every uploaded snippet into the library (bundled ones are loaded already)."""
        self.bundled = {s.id for s in self.library.all(include_hidden=True)}
        published = self.index.published()
        for path in sorted(self.folder.glob("*.md")):
            snippet = parse_snippet(decode(path.read_bytes(), str(path)), path.stem, str(path))
            self.library.add(snippet)
            self.library.set_visible(snippet.id, published.get(snippet.id, False))

    def is_uploaded(self, snippet_id: str) -> bool:
        return (self.folder / f"{snippet_id}.md").exists()

    def is_published(self, snippet_id: str) -> bool:
        return self.library.is_visible(snippet_id)

    def save(self, snippet: Snippet) -> None:
        """A new snippet (a draft) or a new version of one, keeping its publish state."""
        published = self.is_uploaded(snippet.id) and self.is_published(snippet.id)
        write_atomic(self.folder / f"{snippet.id}.md", snippet.source)
        self.index.upsert(snippet.id, snippet.version, published)
        self.library.add(snippet)
        self.library.set_visible(snippet.id, published)

    def set_published(self, snippet: Snippet, published: bool) -> None:
        self.index.upsert(snippet.id, snippet.version, published)
        self.library.set_visible(snippet.id, published)

    def delete(self, snippet_id: str) -> None:
        """Gone for learners and teachers; its versions stay archived for past attempts."""
        (self.folder / f"{snippet_id}.md").unlink(missing_ok=True)
        self.index.remove(snippet_id)
        self.library.remove(snippet_id)
