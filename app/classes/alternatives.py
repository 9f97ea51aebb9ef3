"""Answers a teacher accepted for token match on one blank of one snippet version.

A submission's wrong blanks are compared against them after scoring: a match counts as right
from then on (earlier attempts keep their state). Withdrawing keeps the row, marked withdrawn.
"""

from datetime import UTC, datetime

from sqlalchemy import insert, select, update

from ..engine.score import BlankVerdict, covered_spans, is_match
from .tables import alternatives

TEXT_MAX = 200


def accepted(db, snippet_id: str, version: str) -> dict[tuple[int, int], list[str]]:
    """The alternatives in force for a version, by blank."""
    rows = db.execute(
        select(alternatives.c.first, alternatives.c.last, alternatives.c.text).where(
            alternatives.c.snippet_id == snippet_id,
            alternatives.c.version == version,
            alternatives.c.withdrawn_at.is_(None),
        )
    )
    out: dict[tuple[int, int], list[str]] = {}
    for row in rows:
        out.setdefault((row.first, row.last), []).append(row.text)
    return out


def rescored(db, snippet, holes, verdicts: list[BlankVerdict]) -> list[BlankVerdict]:
    """`verdicts` with every wrong answer that matches an accepted alternative counted as right."""
    if all(v.correct or v.revealed or not v.given.strip() for v in verdicts):
        return verdicts  # nothing to look up: the common case costs no query
    found = accepted(db, snippet.id, snippet.version)
    if not found:
        return verdicts
    out = []
    for hole, verdict in zip(holes, verdicts):
        texts = found.get(covered_spans(snippet.code, hole), ()) if not (verdict.correct or verdict.revealed) else ()
        out.append(verdict._replace(correct=True) if any(is_match(verdict.given, t) for t in texts) else verdict)
    return out


def accept(db, snippet_id: str, version: str, where: tuple[int, int], text: str, who: str) -> int:
    """The id of the alternative in force for this answer (a new one unless it is already)."""
    found = db.execute(
        select(alternatives.c.id).where(
            alternatives.c.snippet_id == snippet_id,
            alternatives.c.version == version,
            alternatives.c.first == where[0],
            alternatives.c.last == where[1],
            alternatives.c.text == text,
            alternatives.c.withdrawn_at.is_(None),
        )
    ).scalar()
    if found is not None:
        return found
    done = db.execute(
        insert(alternatives).values(
            snippet_id=snippet_id,
            version=version,
            first=where[0],
            last=where[1],
            text=text,
            accepted_by=who,
            accepted_at=datetime.now(UTC),
        )
    )
    return done.inserted_primary_key[0]


def withdraw(db, snippet_id: str, alternative_id: int, who: str) -> bool:
    """False when there is no such alternative in force."""
    done = db.execute(
        update(alternatives)
        .where(
            alternatives.c.id == alternative_id,
            alternatives.c.snippet_id == snippet_id,
            alternatives.c.withdrawn_at.is_(None),
        )
        .values(withdrawn_by=who, withdrawn_at=datetime.now(UTC))
    )
    return done.rowcount == 1


def history(db, snippet_id: str, version: str) -> list[dict]:
    """Every alternative of a version, in force or withdrawn, newest first."""
    rows = db.execute(
        select(alternatives)
        .where(alternatives.c.snippet_id == snippet_id, alternatives.c.version == version)
        .order_by(alternatives.c.accepted_at.desc(), alternatives.c.id.desc())
    )
    return [dict(r._mapping) for r in rows]
