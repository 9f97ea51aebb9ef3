"""FSRS ratings: how an attempt's outcome becomes a review of its snippet card and of its tokens."""

from datetime import UTC, datetime
from typing import NamedTuple

from fsrs import Card, Rating, Scheduler, State

from .fsrs6 import recall

# No fuzzing: a card's due date is a function of its reviews, so tests and pages agree.
SCHEDULER = Scheduler(enable_fuzzing=False)
FAST_SECONDS_PER_BLANK = 4.0  # all recalled at least this fast is "easy"
TOKEN_RATING = {
    "right": Rating.Good,
    "accepted": Rating.Hard,
    "unproven": Rating.Again,
    "wrong": Rating.Again,
    "revealed": Rating.Again,
    "empty": Rating.Again,
}
SELF_RATING = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}


def snippet_rating(states: list[str], outcome: str | None, seconds: float | None) -> Rating:
    """Any blank not recalled → again; recalled only thanks to the check → hard; else good or easy.

    With execution off (`outcome` None) token match alone decides; a failed check with every
    token right (the check itself is flaky) is hard.
    """
    if any(s not in ("right", "accepted") for s in states):
        return Rating.Again
    if "accepted" in states or outcome not in (None, "passed"):
        return Rating.Hard
    if seconds is not None and seconds <= FAST_SECONDS_PER_BLANK * max(1, len(states)):
        return Rating.Easy
    return Rating.Good


def reviewed(card: Card | dict | None, rating: Rating, at: datetime, scheduler: Scheduler = SCHEDULER) -> Card:
    """The card after one review (a new card when there is none yet); `scheduler`: the learner's."""
    if card is None:
        card = new_card(at)
    elif isinstance(card, dict):
        card = Card.from_dict(card)
    return scheduler.review_card(card, rating, at)[0]


class Reviewed(NamedTuple):
    """A token's FSRS fields after a review, in its row's column order."""

    state: int
    step: int | None
    stability: float
    difficulty: float
    due: float  # unix seconds
    last_review: float


def token_reviewed(row, rating: Rating, at: datetime, scheduler: Scheduler = SCHEDULER) -> Reviewed:
    """A token's memory after one review at `at` (FSRS's `review_card`); `row` its stored memory (None: new)."""
    card = reviewed(None if row is None else token_card(row), rating, at, scheduler)
    return Reviewed(
        card.state.value, card.step, card.stability, card.difficulty, to_unix(card.due), to_unix(card.last_review)
    )


def new_card(at: datetime) -> Card:
    return Card(card_id=1, due=at)  # card ids are unused: rows are keyed by learner and snippet


def token_card(row) -> Card:
    return Card(
        card_id=1,
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=from_unix(row.due),
        last_review=from_unix(row.last_review),
    )


def retrievability(
    stability: float | None, last_review: float | None, at: datetime, scheduler: Scheduler = SCHEDULER
) -> float | None:
    """Recall probability now (FSRS's forgetting curve, over fractional days so that tokens
    practised the same day still differ); None for a token never tested."""
    if stability is None or last_review is None:
        return None
    return recall(scheduler, (at.timestamp() - last_review) / 86400, stability)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every time stored here is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def from_unix(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def to_unix(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()
