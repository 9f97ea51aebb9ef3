"""Reading learner memory: a few keyed rows per page, never the attempt history."""

from datetime import UTC, datetime
from typing import NamedTuple

from sqlalchemy import select

from .tables import cards, tokens
from .versions import stored_code, version_map


def learner_cards(db, learner: str) -> list:
    return db.execute(select(cards).where(cards.c.learner == learner)).all()


def token_memory(db, learner: str, snippet_id: str, version: str, code: str, card_version: str | None = None) -> dict:
    """Memory rows of `version`'s tokens by span index; for a version not practised yet, the
    rows of the version last practised, mapped onto it (unmatched tokens have none)."""
    rows = _rows(db, learner, snippet_id, version)
    if rows or card_version in (None, version):
        return rows
    old_code = stored_code(db, snippet_id, card_version)
    if not old_code:
        return {}
    mapping = version_map(old_code, code)
    return {mapping[span]: row for span, row in _rows(db, learner, snippet_id, card_version).items() if span in mapping}


class TokenMemory(NamedTuple):
    span: int
    stability: float | None
    last_review: float | None  # unix seconds
    heat: float
    heat_at: float | None
    seen: int
    misses: int
    wrong: list | None
    difficulty: float | None = None
    spaced: float | None = None  # when last recalled the next day or later (update.spaced_recall)
    missed: bool | None = None  # whether its last test was a miss


def _rows(db, learner: str, snippet_id: str, version: str) -> dict[int, TokenMemory]:
    query = select(
        tokens.c.span,
        tokens.c.stability,
        tokens.c.last_review,
        tokens.c.heat,
        tokens.c.heat_at,
        tokens.c.seen,
        tokens.c.misses,
        tokens.c.wrong,
        tokens.c.difficulty,
        tokens.c.spaced,
        tokens.c.missed,
    ).where(tokens.c.learner == learner, tokens.c.snippet_id == snippet_id, tokens.c.version == version)
    return {r.span: TokenMemory(*r) for r in db.execute(query)}


def card_version(db, learner: str, snippet_id: str) -> str | None:
    return db.execute(
        select(cards.c.version).where(cards.c.learner == learner, cards.c.snippet_id == snippet_id, cards.c.item == "")
    ).scalar()


def first_seen(db, learner: str, snippet_id: str) -> float | None:
    """Unix time (the day's start, UTC) the learner first practised the snippet, or None."""
    days = db.execute(
        select(cards.c.days).where(cards.c.learner == learner, cards.c.snippet_id == snippet_id, cards.c.item == "")
    ).scalar()
    return datetime.fromisoformat(days[0]).replace(tzinfo=UTC).timestamp() if days else None
