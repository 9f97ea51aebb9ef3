"""Every snippet the server knows: the current version of each, and every version ever served."""

from pathlib import Path
from typing import Protocol

from .course import parse_index
from .errors import SnippetInvalid
from .files import decode
from .model import Snippet
from .parse import SNIPPET_ID, parse_snippet


class Archive(Protocol):
    """Where every version ever served is kept (the database)."""

    def source(self, snippet_id: str, version: str) -> str | None: ...
    def keep_version(self, snippet_id: str, version: str, source: str) -> None: ...


class SnippetLibrary:
    """Current snippets by id; older versions come back from an archive keyed by content hash,
    so attempts and shared mask URLs keep scoring against the version they were made on.
    Without an archive (tools, tests) only the versions seen by this process are known."""

    def __init__(self, archive: Archive | None = None):
        self.archive = archive
        self._current: dict[str, Snippet] = {}
        self._versions: dict[tuple[str, str], Snippet] = {}
        self._hidden: set[str] = set()  # unpublished drafts: teachers only
        self.home_title = "codecloze"
        self.home_text = ""  # Markdown shown above the list on the home page
        self.home_sections: tuple = ()  # the course's sections in the teacher's order (course.py)
        self.course_version = ""  # of the imported `_index.md` shown, "" for the bundled one

    def load_dir(self, folder: Path) -> None:
        """Parse every `*.md` of a folder; the first invalid file stops start-up with its problems."""
        for path in sorted(folder.glob("*.md")):
            text = decode(path.read_bytes(), str(path))
            if path.name == "_index.md":
                self.set_course(parse_index(text, []))
            elif not path.name.startswith("_"):
                self.add(parse_snippet(text, path.stem, str(path)))

    def set_course(self, index, version: str = "") -> None:
        """The home page's title, prose and sections, from a course's `_index.md`."""
        self.home_title, self.home_text, self.home_sections = index.title, index.prose, index.sections
        self.course_version = version

    def add(self, snippet: Snippet, *, archived: bool = False) -> None:
        """Serve `snippet` as current; `archived` when its version is in the archive already."""
        if self.archive is not None and not archived:
            self.archive.keep_version(snippet.id, snippet.version, snippet.source)
        self._current[snippet.id] = snippet
        self._versions[snippet.id, snippet.version] = snippet

    def remove(self, snippet_id: str) -> None:
        self._current.pop(snippet_id, None)
        self._hidden.discard(snippet_id)

    def set_visible(self, snippet_id: str, visible: bool) -> None:
        (self._hidden.discard if visible else self._hidden.add)(snippet_id)

    def is_visible(self, snippet_id: str) -> bool:
        return snippet_id in self._current and snippet_id not in self._hidden

    def all(self, include_hidden: bool = False) -> list[Snippet]:
        shown = [s for s in self._current.values() if include_hidden or s.id not in self._hidden]
        return sorted(shown, key=lambda s: (s.level_key, s.order or 0, s.title))

    def get(self, snippet_id: str, version: str | None = None) -> Snippet | None:
        """The current snippet, or an exact earlier version of it when `version` is given."""
        current = self._current.get(snippet_id)
        if version is None or (current and current.version == version):
            return current
        if (snippet_id, version) in self._versions:
            return self._versions[snippet_id, version]
        return self._from_archive(snippet_id, version)

    def _from_archive(self, snippet_id: str, version: str) -> Snippet | None:
        if self.archive is None or not (SNIPPET_ID.match(snippet_id) and version.isalnum() and len(version) == 12):
            return None
        source = self.archive.source(snippet_id, version)
        try:
            snippet = parse_snippet(source, snippet_id, f"{snippet_id}@{version}") if source else None
        except SnippetInvalid:
            return None
        if snippet is None:
            return None
        self._versions[snippet_id, version] = snippet
        return snippet
