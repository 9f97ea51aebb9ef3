"""A learner's standing, read from their cards and token memory: what `/me` and `/` show."""

from datetime import UTC, datetime, time, timedelta

from fsrs import Card, State

from .forecast import forecast
from .lateness import overdue_by
from .learner_model import learner_model
from .progress import chart_svg, duration, heatmap_html, streak
from .schedule import aware
from .state import first_seen, learner_cards, token_memory
from .versions import stored_code

DEFAULT_REVIEW_RATE = 15


def due_list(db, learner: str, library, at: datetime, now: datetime | None = None) -> list[dict]:
    """What is due by `at` at the learner's desired retention, soonest first, with where to review it
    and how late it is by `now`."""
    now = now or datetime.now(UTC)
    out, scheduler = [], learner_model(db, learner).scheduler
    every = learner_cards(db, learner)
    due = {(c.snippet_id, c.item): due_at(c, scheduler) for c in every}
    cards = sorted(
        (c for c in every if due[c.snippet_id, c.item] <= at),
        key=lambda c: (due[c.snippet_id, c.item], c.snippet_id, c.item),
    )
    for card in cards:
        snippet = library.get(card.snippet_id)
        if snippet is None or not library.is_visible(card.snippet_id):
            continue
        question = card.item.startswith("q")
        out.append(
            {
                "snippet": snippet.id,
                "title": snippet.title,
                "item": card.item,
                "kind": "question" if question else "code",
                "due": due[card.snippet_id, card.item].isoformat(),
                "overdue": overdue_by(due[card.snippet_id, card.item], now),
                "url": f"/s/{snippet.id}" if question else f"/s/{snippet.id}/review?rate={DEFAULT_REVIEW_RATE}",
            }
        )
    return out


def due_at(card, scheduler) -> datetime:
    """When a card falls to the desired retention: its stored due date, recomputed from its
    stability at the learner's retention once it is in review (the setting may have changed)."""
    fsrs = Card.from_dict(card.fsrs)
    if fsrs.state != State.Review or fsrs.stability is None or fsrs.last_review is None:
        return aware(card.due)
    return aware(fsrs.last_review) + timedelta(days=scheduler._next_interval(stability=fsrs.stability))


def snippet_progress(db, learner: str, library, at: datetime) -> list[dict]:
    """Per practised snippet: attempts, accuracy, chart, time, streak, next due date, heatmap,
    and the model's forecast (recall now and in 7 days, known tokens)."""
    out, scheduler = [], learner_model(db, learner).scheduler
    for card in learner_cards(db, learner):
        if card.item:
            continue
        snippet = library.get(card.snippet_id)
        code = snippet.code if snippet else stored_code(db, card.snippet_id, card.version)
        version = snippet.version if snippet else card.version
        memory = token_memory(db, learner, card.snippet_id, version, code or "", card.version)
        ahead = forecast(code or "", memory, at, scheduler, first_seen(db, learner, card.snippet_id))
        due = due_at(card, scheduler)
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
                "streak": streak(card.days, at.date()),
                "due": due.isoformat(),
                "is_due": due <= at,
                "history": card.history,
                "recall_now": ahead and round(ahead.now, 4),
                "recall_week": ahead and round(ahead.week, 4),
                "known": ahead and ahead.known,
                "eligible": ahead and ahead.total,
                "chart": chart_svg(card.history),
                "heatmap": heatmap_html(code or "", memory, at),
                "tokens": {
                    str(i): {"seen": r.seen, "misses": r.misses, "wrong": r.wrong or []}
                    for i, r in sorted(memory.items())
                },
            }
        )
    out.sort(key=lambda s: s["title"])
    return out


def end_of_today(now: datetime) -> datetime:
    """What is due "today": by the end of the current UTC day (the learner's time zone is not known)."""
    return datetime.combine(now.date() + timedelta(days=1), time.min, UTC)


def due_today(store, learner: str, library) -> list[dict]:
    with store.engine.connect() as db:
        return due_list(db, learner, library, end_of_today(datetime.now(UTC)))
