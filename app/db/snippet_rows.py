"""Snippet texts in the database: every version ever served, and which uploads learners see.

An upload or edit is one transaction (its text and its row together), so a refused write
leaves nothing behind and a confirmed one is complete; the in-memory library follows the
commit, never leads it.
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, delete, insert, select, update

from .tables import course_index, snippet_versions, snippets
from .upserts import dialect_insert

HOME = "home"


@dataclass(frozen=True)
class Uploaded:
    id: str
    version: str
    published: bool
    source: str


class SnippetRows:
    def __init__(self, engine: Engine):
        self.engine = engine

    def source(self, snippet_id: str, version: str) -> str | None:
        """The text of one version, byte for byte as it was served."""
        with self.engine.connect() as db:
            return db.execute(
                select(snippet_versions.c.source).where(
                    snippet_versions.c.snippet_id == snippet_id, snippet_versions.c.version == version
                )
            ).scalar()

    def keep_version(self, snippet_id: str, version: str, source: str) -> None:
        """Archive a version (bundled snippets at start-up); already there is fine."""
        with self.engine.begin() as db:
            _insert_version(db, snippet_id, version, source)

    def uploaded(self) -> list[Uploaded]:
        query = select(snippets.c.id, snippets.c.version, snippets.c.published, snippet_versions.c.source).join(
            snippet_versions,
            (snippet_versions.c.snippet_id == snippets.c.id) & (snippet_versions.c.version == snippets.c.version),
        )
        with self.engine.connect() as db:
            return [Uploaded(*row) for row in db.execute(query.order_by(snippets.c.id))]

    def save(self, snippet_id: str, version: str, source: str, published: bool, owner: int | None = None) -> None:
        """The text and the current-version row, in one transaction; `owner` is kept for a new snippet."""
        with self.engine.begin() as db:
            _save_in(db, snippet_id, version, source, published, owner)

    def owner(self, snippet_id: str) -> int | None:
        """The teacher account that uploaded the snippet (None: an admin's, or not uploaded)."""
        with self.engine.connect() as db:
            return db.execute(select(snippets.c.owner_id).where(snippets.c.id == snippet_id)).scalar()

    def save_course(
        self, items: list[tuple[str, str, str, bool]], index: tuple[str, str] | None, owner: int | None = None
    ) -> None:
        """Several (id, version, source, published) and the course's `_index.md` (version, text):
        all in one transaction, so a refused write saves none of them."""
        with self.engine.begin() as db:
            for item in items:
                _save_in(db, *item, owner)
            if index is not None:
                values = {"version": index[0], "source": index[1], "updated_at": datetime.now(UTC)}
                if db.execute(update(course_index).where(course_index.c.key == HOME).values(**values)).rowcount == 0:
                    db.execute(insert(course_index).values(key=HOME, **values))

    def course(self) -> tuple[str, str] | None:
        """(version, text) of the imported course's `_index.md`, if one was imported."""
        with self.engine.connect() as db:
            row = db.execute(
                select(course_index.c.version, course_index.c.source).where(course_index.c.key == HOME)
            ).first()
        return (row.version, row.source) if row else None

    def set_published(self, snippet_id: str, published: bool) -> None:
        with self.engine.begin() as db:
            db.execute(
                update(snippets)
                .where(snippets.c.id == snippet_id)
                .values(published=published, updated_at=datetime.now(UTC))
            )

    def remove(self, snippet_id: str) -> None:
        """Gone from the list; its versions stay for the attempts made on them."""
        with self.engine.begin() as db:
            db.execute(delete(snippets).where(snippets.c.id == snippet_id))

    def index(self) -> dict[str, tuple[str, bool]]:
        """Current version and publish state of every upload (legacy rows too)."""
        with self.engine.connect() as db:
            return {
                r.id: (r.version, r.published)
                for r in db.execute(select(snippets.c.id, snippets.c.version, snippets.c.published))
            }


def _save_in(db, snippet_id: str, version: str, source: str, published: bool, owner: int | None = None) -> None:
    _insert_version(db, snippet_id, version, source)
    values = {"version": version, "published": published, "updated_at": datetime.now(UTC)}
    if db.execute(update(snippets).where(snippets.c.id == snippet_id).values(**values)).rowcount == 0:
        db.execute(insert(snippets).values(id=snippet_id, owner_id=owner, **values))


def _insert_version(db, snippet_id: str, version: str, source: str) -> None:
    """Insert unless present: another worker may archive the same version at the same moment."""
    db.execute(
        dialect_insert(db.dialect.name)(snippet_versions)
        .values(snippet_id=snippet_id, version=version, source=source, created_at=datetime.now(UTC))
        .on_conflict_do_nothing(index_elements=["snippet_id", "version"])
    )
