"""Stored moments read back: every one is written in UTC, SQLite gives it back without a zone and
PostgreSQL with its session's offset."""

from datetime import UTC, datetime


def utc(at: datetime) -> datetime:
    """A stored moment as an aware datetime in UTC (what fsrs and the comparisons with now want)."""
    return at.astimezone(UTC) if at.tzinfo else at.replace(tzinfo=UTC)
