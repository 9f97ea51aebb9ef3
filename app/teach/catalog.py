"""Uploaded snippets: their texts and publish state in the database, served from the library.

Every change is committed first and shown to learners after: a write the database refuses
changes nothing, and a restart serves exactly what was confirmed.
"""

import asyncio
import logging

from app.db.snippet_rows import SnippetRows
from app.snippets.course import parse_index
from app.snippets.library import SnippetLibrary
from app.snippets.model import Snippet
from app.snippets.parse import parse_snippet

log = logging.getLogger("codecloze")


class Catalog:
    def __init__(self, rows: SnippetRows, library: SnippetLibrary):
        self.rows = rows
        self.library = library
        self.bundled: set[str] = set()
        self.uploaded: set[str] = set()
        self._generation = 0  # counts this worker's own changes, so a sync never undoes a newer one
        self._changed: dict[str, int] = {}

    def load(self) -> None:
        """Bring every uploaded snippet into the library (bundled ones are loaded already)."""
        self.bundled = {s.id for s in self.library.all(include_hidden=True)}
        for row in self.rows.uploaded():
            if row.id in self.bundled:
                continue  # a bundled snippet took this id since: the bundled file wins
            self._show(parse_snippet(row.source, row.id, f"{row.id}@{row.version}"), row.published)
        self._show_course(self.rows.course())

    def save_course(
        self, snippets: list[Snippet], index: tuple[str, str] | None, publish: bool, owner: int | None = None
    ) -> None:
        """A whole course in one transaction: new snippets are drafts unless `publish`; edited
        ones keep their state (or are published). `index`: (version, text) of its `_index.md`."""
        items = [
            (s.id, s.version, s.source, publish or (self.is_uploaded(s.id) and self.is_published(s.id)))
            for s in snippets
        ]
        self.rows.save_course(items, index, owner)
        for snippet, item in zip(snippets, items):
            self._mark(snippet.id)
            self._show(snippet, item[3])
        self._show_course(index)

    def _show_course(self, index: tuple[str, str] | None) -> None:
        if index is not None and index[0] != self.library.course_version:
            self.library.set_course(parse_index(index[1], []), index[0])

    def owner(self, snippet_id: str) -> int | None:
        """The teacher account that uploaded it (None: an admin's, or bundled)."""
        return self.rows.owner(snippet_id)

    def is_uploaded(self, snippet_id: str) -> bool:
        return snippet_id in self.uploaded

    def is_published(self, snippet_id: str) -> bool:
        return self.library.is_visible(snippet_id)

    def save(self, snippet: Snippet, owner: int | None = None) -> None:
        """A new snippet (a draft, `owner`'s) or a new version of one, keeping its publish state and owner."""
        published = self.is_uploaded(snippet.id) and self.is_published(snippet.id)
        self.rows.save(snippet.id, snippet.version, snippet.source, published, owner)
        self._mark(snippet.id)
        self._show(snippet, published)

    def set_published(self, snippet: Snippet, published: bool) -> None:
        self.rows.set_published(snippet.id, published)
        self._mark(snippet.id)
        self.library.set_visible(snippet.id, published)

    def delete(self, snippet_id: str) -> None:
        """Gone for learners and teachers; its versions stay archived for past attempts."""
        self.rows.remove(snippet_id)
        self._mark(snippet_id)
        self.uploaded.discard(snippet_id)
        self.library.remove(snippet_id)

    def sync(self) -> int:
        """Take what other workers committed (uploads, edits, publish, delete); the number of changes."""
        return self._apply(self._read_changes(), self._generation)

    def _course_change(self) -> list:
        index = self.rows.course()
        return [("course", "", index, False)] if index and index[0] != self.library.course_version else []

    async def follow(self, interval: float) -> None:
        """Keep this worker's library in step with the database, for as long as the app runs.
        The database is read in a thread (a slow database never stalls pages); changes are
        applied here, between requests, skipping snippets this worker changed meanwhile."""
        failing = False
        while True:
            await asyncio.sleep(interval)
            since = self._generation
            try:
                changes = await asyncio.to_thread(self._read_changes)
            except Exception as err:  # the database is away: serve what we have, say so once
                if not failing:
                    log.warning("cannot follow snippet changes: %s", str(err).splitlines()[0][:200])
                failing = True
                continue
            failing = False
            self._apply(changes, since)

    def _read_changes(self) -> list[tuple[str, str, Snippet | None, bool]]:
        """(kind, id, snippet, published) for every upload that differs from here: "show" a new
        current version, "visible" a new publish state, "gone" a deleted snippet."""
        index = self.rows.index()
        changes = []
        for snippet_id, (version, published) in index.items():
            current = self.library.get(snippet_id)
            if snippet_id in self.bundled:
                continue
            if current is None or current.version != version:
                source = self.rows.source(snippet_id, version)
                if source is not None:
                    snippet = parse_snippet(source, snippet_id, f"{snippet_id}@{version}")
                    changes.append(("show", snippet_id, snippet, published))
            elif self.is_published(snippet_id) != published:
                changes.append(("visible", snippet_id, None, published))
        changes += [("gone", snippet_id, None, False) for snippet_id in self.uploaded - index.keys()]
        return changes + self._course_change()

    def _apply(self, changes: list, since: int) -> int:
        applied = 0
        for kind, snippet_id, snippet, published in changes:
            if self._changed.get(snippet_id, 0) > since:
                continue  # changed here after the read: ours is newer
            if kind == "course":
                self._show_course(snippet)
            elif kind == "show":
                self._show(snippet, published)
            elif kind == "visible":
                self.library.set_visible(snippet_id, published)
            else:
                self.uploaded.discard(snippet_id)
                self.library.remove(snippet_id)
            applied += 1
        return applied

    def _mark(self, snippet_id: str) -> None:
        self._generation += 1
        self._changed[snippet_id] = self._generation

    def _show(self, snippet: Snippet, published: bool) -> None:
        self.library.add(snippet, archived=True)
        self.library.set_visible(snippet.id, published)
        self.uploaded.add(snippet.id)
