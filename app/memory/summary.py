"""A learner's standing, read from their cards and token memory: what `/me` and `/` show."""

from datetime import UTC, datetime, time, timedelta, tzinfo

from fsrs import Card, State

from .due import code_due, learner_token_rows
from .forecast import forecast
from .fsrs6 import interval
from .lateness import overdue_by
from .learner_model import learner_model
from .progress import chart_svg, duration, heatmap_html, practised_days, streak
from .schedule import aware
from .state import first_seen, learner_cards, token_memory
from .versions import stored_code

DEFAULT_REVIEW_RATE = 15


def due_list(db, learner: str, library, at: datetime, now: datetime | None = None) -> list[dict]:
    """What is due by `at` at the learner's desired retention, soonest first, with where to review it
    and how late it is by `now`: code when enough of its tested tokens slipped (due.py), a short
    answer by its FSRS card."""
    now = now or datetime.now(UTC)
    model = learner_model(db, learner)
    rate = model.rate or DEFAULT_REVIEW_RATE
    due = card_dues(db, learner, model.scheduler)
    out = []
    for (snippet_id, item), when in sorted(due.items(), key=lambda kv: (kv[1], kv[0])):
        snippet = library.get(snippet_id)
        if when > at or snippet is None or not library.is_visible(snippet_id):
            continue
        question = item.startswith("q")
        out.append(
            {
                "snippet": snippet.id,
                "title": snippet.title,
                "item": item,
                "kind": "question" if question else "code",
                "due": when.isoformat(),
                "overdue": overdue_by(when, now),
                "url": question_url(snippet.id, item) if question else f"/s/{snippet.id}/review?rate={rate}",
            }
        )
    return out


def question_url(snippet_id: str, item: str) -> str:
    """A due question's address: the exercise, scrolled to that question, which it marks as due."""
    return f"/s/{snippet_id}?due={item}#question-{item[1:]}"


def card_dues(db, learner: str, scheduler) -> dict[tuple[str, str], datetime]:
    """(snippet, item) → when it falls due, for every card that has a due time."""
    rows = learner_token_rows(db, learner)
    out = {}
    for card in learner_cards(db, learner):
        if card.item:
            when = due_at(card, scheduler)
        else:
            when = code_due(rows.get((card.snippet_id, card.version), ()), scheduler)
        if when is not None:
            out[card.snippet_id, card.item] = when
    return out


def due_at(card, scheduler) -> datetime:
    """When a card falls to the desired retention: its stored due date, recomputed from its
    stability at the learner's retention once it is in review (the setting may have changed)."""
    fsrs = Card.from_dict(card.fsrs)
    if fsrs.state != State.Review or fsrs.stability is None or fsrs.last_review is None:
        return aware(card.due)
    return aware(fsrs.last_review) + timedelta(days=interval(scheduler, fsrs.stability))


def snippet_progress(db, learner: str, library, at: datetime, zone: tzinfo = UTC) -> list[dict]:
    """Per practised snippet: attempts, accuracy, chart, time, streak, next due date, heatmap,
    and the model's forecast (recall now and in 7 days, known tokens)."""
    out, scheduler = [], learner_model(db, learner).scheduler
    dues = card_dues(db, learner, scheduler)
    for card in learner_cards(db, learner):
        if card.item:
            continue
        snippet = library.get(card.snippet_id)
        code = snippet.code if snippet else stored_code(db, card.snippet_id, card.version)
        version = snippet.version if snippet else card.version
        memory = token_memory(db, learner, card.snippet_id, version, code or "", card.version)
        ahead = forecast(code or "", memory, at, scheduler, first_seen(db, learner, card.snippet_id))
        due = dues.get((card.snippet_id, ""))
        out.append(
            {
                "snippet": card.snippet_id,
                "title": snippet.title if snippet else card.snippet_id,
                "attempts": card.attempts,
                "recalls": card.recalls,
                "best": card.best,
                "latest": card.latest,
                "seconds": round(card.seconds, 1),
                "time": duration(card.seconds),
                "streak": streak(practised_days(card.days, card.history, zone), at.astimezone(zone).date()),
                "due": due and due.isoformat(),
                "is_due": due is not None and due <= at,
                "history": card.history,
                "recall_now": ahead and round(ahead.now, 4),
                "recall_week": ahead and round(ahead.week, 4),
                "known": ahead and ahead.known,
                "retention": scheduler.desired_retention,
                "eligible": ahead and ahead.total,
                "chart": chart_svg(card.history, zone=zone),
                "heatmap": heatmap_html(code or "", memory, at),
                "tokens": {
                    str(i): {"seen": r.seen, "misses": r.misses, "wrong": r.wrong or []}
                    for i, r in sorted(memory.items())
                },
            }
        )
    out.sort(key=lambda s: s["title"])
    return out


def end_of_today(now: datetime, zone: tzinfo = UTC) -> datetime:
    """What is due "today": by the end of the learner's day in their time zone (UTC when unknown)."""
    local = now.astimezone(zone)
    return datetime.combine(local.date() + timedelta(days=1), time.min, zone).astimezone(UTC)


def due_today(store, learner: str, library, zone: tzinfo = UTC) -> list[dict]:
    now = datetime.now(UTC)
    with store.engine.connect() as db:
        return due_list(db, learner, library, end_of_today(now, zone), now)
