"""A snippet's class figures, summed from the class counters with a few grouped queries."""

from dataclasses import dataclass
from datetime import UTC, datetime, time

from sqlalchemy import and_, desc, distinct, func, select

from .tables import activity, answers, spans

ANSWERS_SHOWN = 5  # most common answers per blank


@dataclass(frozen=True)
class Scope:
    """Which counters a page sums: a snippet version, a class (None: every class), UTC days."""

    snippet_id: str
    version: str
    class_code: str | None = None
    start: str | None = None  # ISO day, inclusive
    end: str | None = None

    def where(self, table):
        """The counter rows in scope ("" snippet or version: any)."""
        terms = []
        if self.snippet_id:
            terms.append(table.c.snippet_id == self.snippet_id)
        if self.version:
            terms.append(table.c.version == self.version)
        if self.class_code is not None:
            terms.append(table.c.class_code == self.class_code)
        if self.start:
            terms.append(table.c.day >= self.start)
        if self.end:
            terms.append(table.c.day <= self.end)
        return and_(*terms)


def mean(total: float, count: int) -> float | None:
    return round(total / count, 4) if count else None


def totals(db, scope: Scope) -> dict:
    row = db.execute(
        select(
            func.coalesce(func.sum(activity.c.attempts), 0),
            func.count(distinct(activity.c.learner)),
            func.coalesce(func.sum(activity.c.recalls), 0),
            func.sum(activity.c.accuracy),
        ).where(scope.where(activity))
    ).one()
    return {
        "attempts": int(row[0]),
        "learners": int(row[1]),
        "recalls": int(row[2]),
        "accuracy": mean(row[3] or 0.0, int(row[2])),
    }


def by_day(db, scope: Scope) -> list[dict]:
    """Mean accuracy of the recall attempts, per UTC day."""
    rows = db.execute(
        select(
            activity.c.day, func.sum(activity.c.attempts), func.sum(activity.c.recalls), func.sum(activity.c.accuracy)
        )
        .where(scope.where(activity))
        .group_by(activity.c.day)
        .order_by(activity.c.day)
    )
    return [
        {"day": day, "attempts": int(n), "recalls": int(r), "accuracy": mean(acc, int(r))} for day, n, r, acc in rows
    ]


def chart_points(days: list[dict]) -> list[list[float]]:
    """[[unix time at noon UTC, accuracy]] of the days with recall attempts (progress chart's shape)."""
    noon = time(12, tzinfo=UTC)
    return [
        [datetime.combine(datetime.fromisoformat(d["day"]).date(), noon).timestamp(), d["accuracy"]]
        for d in days
        if d["accuracy"] is not None
    ]


def token_rates(db, scope: Scope) -> dict[int, tuple[int, int]]:
    """Per candidate token: (times it was a blank, times it was not recalled)."""
    rows = db.execute(
        select(spans.c.span, func.sum(spans.c.seen), func.sum(spans.c.missed))
        .where(scope.where(spans))
        .group_by(spans.c.span)
    )
    return {span: (int(seen), int(missed)) for span, seen, missed in rows}


def common_answers(db, scope: Scope) -> dict[str, dict[tuple[int, int], list[tuple[str, int]]]]:
    """Per state (wrong, accepted, unproven) and blank (first, last): its most common answers with counts,
    most common first. One scan of the answer counters; the database keeps the top few."""
    total = func.sum(answers.c.count).label("n")
    keys = (answers.c.state, answers.c.first, answers.c.last)
    grouped = (
        select(*keys, answers.c.given, total)
        .where(scope.where(answers))
        .group_by(*keys, answers.c.given)
        .having(total > 0)  # an answer judged again is counted under its new state only
        .subquery()
    )
    # Ties in byte order: PostgreSQL's locale-aware order made this sort 90 % of the page's time.
    given = grouped.c.given.collate("C") if db.dialect.name == "postgresql" else grouped.c.given
    rank = (
        func.row_number()
        .over(partition_by=(grouped.c.state, grouped.c.first, grouped.c.last), order_by=(desc(grouped.c.n), given))
        .label("rank")
    )
    ranked = select(grouped, rank).subquery()
    rows = db.execute(
        select(ranked.c.state, ranked.c.first, ranked.c.last, ranked.c.given, ranked.c.n)
        .where(ranked.c.rank <= ANSWERS_SHOWN)
        .order_by(ranked.c.first, ranked.c.last, ranked.c.rank)
    )
    out: dict[str, dict] = {"wrong": {}, "accepted": {}, "unproven": {}}
    for state, first, last, given, n in rows:
        out[state].setdefault((first, last), []).append((given, int(n)))
    return out


def per_learner(db, scope: Scope) -> dict[str, dict]:
    """Per learner: attempts and mean accuracy."""
    rows = db.execute(
        select(
            activity.c.learner,
            func.sum(activity.c.attempts),
            func.sum(activity.c.recalls),
            func.sum(activity.c.accuracy),
        )
        .where(scope.where(activity))
        .group_by(activity.c.learner)
    )
    return {learner: {"attempts": int(n), "accuracy": mean(acc, int(r))} for learner, n, r, acc in rows}


def versions_practised(db, snippet_id: str) -> list[str]:
    rows = db.execute(
        select(activity.c.version, func.max(activity.c.day))
        .where(activity.c.snippet_id == snippet_id)
        .group_by(activity.c.version)
        .order_by(desc(func.max(activity.c.day)))
    )
    return [version for version, _day in rows]
