"""Keeping learner memory up to date, inside the transaction that writes each batch of attempts."""

import math
from datetime import UTC, datetime

from sqlalchemy import insert, select

from ..db.statements import key_values, select_keyed, update_keyed, upsert
from ..db.tables import attempts
from ..engine.tokens import candidate_spans
from .learner_model import count_reviews, learner_model
from .record import RECALLED
from .schedule import SELF_RATING, TOKEN_RATING, new_card, reviewed, snippet_rating, to_unix, token_card
from .tables import cards, tokens
from .versions import stored_code, version_map

HEAT_HALF_LIFE_DAYS = 7.0
WRONG_KEPT = 5
DAYS_KEPT = 400
HISTORY_KEPT = 60
CARD_KEY = ("learner", "snippet_id", "item")
TOKEN_KEY = ("learner", "snippet_id", "version")
TOKEN_COLUMNS = TOKEN_KEY + ("span",)
CARD = select_keyed(cards, CARD_KEY)
CARD_UPDATE = update_keyed(cards, CARD_KEY)
TOKENS_AT = select_keyed(tokens, TOKEN_KEY, among="span")
TOKENS_OF = select_keyed(tokens, TOKEN_KEY)
ANY_TOKEN = TOKENS_OF.with_only_columns(tokens.c.span).limit(1)
NEW_CARD, NEW_TOKENS = insert(cards), insert(tokens)


def apply_attempts(db, batch: list) -> None:
    """`batch`: (attempt id, AttemptRecord, time) as the store writes them."""
    for _attempt_id, record, at in batch:
        card = _card(db, record.learner, record.snippet_id, "")
        if card is not None and card.version != record.version:
            _carry_over(db, record, card.version)
        scheduler = learner_model(db, record.learner).scheduler
        if not record.practice:
            count_reviews(db, record.learner, _review_tokens(db, record, at, scheduler))
        _save_card(db, card, record, at, scheduler)


def rate_question(db, attempt_id: int, learner: str, question: int, rating: str) -> None:
    """A short answer's own rating reviews that question's card (its attempt is the learner's)."""
    found = db.execute(
        select(attempts.c.snippet_id, attempts.c.version).where(
            attempts.c.id == attempt_id, attempts.c.learner == learner
        )
    ).first()
    if found is not None:
        _self_rating(db, learner, found.snippet_id, found.version, question, rating, datetime.now(UTC))


def _self_rating(db, learner: str, snippet_id: str, version: str, question: int, rating: str, at: datetime) -> None:
    item = f"q{question}"
    card = _card(db, learner, snippet_id, item)
    fsrs_card = reviewed(card.fsrs if card else None, SELF_RATING[rating], at)
    values = {"fsrs": fsrs_card.to_dict(), "due": fsrs_card.due, "version": version, "last_at": at}
    if card is None:
        db.execute(
            insert(cards).values(
                learner=learner,
                snippet_id=snippet_id,
                item=item,
                attempts=1,
                recalls=1,
                seconds=0.0,
                days=[at.date().isoformat()],
                history=[],
                **values,
            )
        )
    else:
        changes = {"attempts": card.attempts + 1, "recalls": card.recalls + 1, **values}
        db.execute(CARD_UPDATE, {**changes, **key_values(CARD_KEY, (learner, snippet_id, item))})


def _card(db, learner: str, snippet_id: str, item: str):
    return db.execute(CARD, key_values(CARD_KEY, (learner, snippet_id, item))).first()


def _set_tokens(table, excluded) -> dict:
    """A token's row replaced by the new one (its memory was read in this transaction)."""
    return {c.name: excluded[c.name] for c in table.c if c.name not in TOKEN_COLUMNS}


def _carry_over(db, record, old_version: str) -> None:
    """First attempt on a new version: copy the memory of tokens that survived the edit."""
    key = key_values(TOKEN_KEY, (record.learner, record.snippet_id, record.version))
    if db.execute(ANY_TOKEN, key).first() is not None:
        return  # this version has memory of its own already
    old_code = stored_code(db, record.snippet_id, old_version)
    if not old_code or not record.code:
        return
    mapping = version_map(old_code, record.code)
    old = db.execute(TOKENS_OF, key_values(TOKEN_KEY, (record.learner, record.snippet_id, old_version))).all()
    rows = [
        {**row._mapping, "version": record.version, "span": mapping[row.span]} for row in old if row.span in mapping
    ]
    if rows:
        db.execute(NEW_TOKENS, rows)


def _spans(entry: dict) -> range:
    span = entry.get("span")
    if span is None:
        return range(0)
    return range(span, span + 1) if isinstance(span, int) else range(span[0], span[1] + 1)


def _review_tokens(db, record, at: datetime, scheduler) -> int:
    """Reviews the attempt's tokens; how many it reviewed."""
    texts = [s.text for s in candidate_spans(record.code)] if record.code else []  # by span index
    states = {i: entry for entry in record.blanks for i in _spans(entry)}
    if not states:
        return 0
    key = key_values(TOKEN_KEY, (record.learner, record.snippet_id, record.version))
    old = {r.span: r for r in db.execute(TOKENS_AT, {**key, "span": list(states)})}
    rows = [_token_row(record, span, entry, old.get(span), texts, at, scheduler) for span, entry in states.items()]
    db.execute(upsert(db.dialect.name, tokens, TOKEN_COLUMNS, _set_tokens), rows)
    return len(rows)


def _token_row(record, span: int, entry: dict, row, texts: list[str], at: datetime, scheduler) -> dict:
    state = entry["state"]
    card = reviewed(None if row is None else token_card(row), TOKEN_RATING[state], at, scheduler)
    missed = state not in RECALLED
    now = at.timestamp()
    heat = decayed(row.heat, row.heat_at, now) if row is not None and row.heat_at else 0.0
    wrong = list(row.wrong or ()) if row is not None else []
    given = entry.get("given", "").strip()
    if state in ("wrong", "accepted", "unproven") and given:
        wrong = ([given] + [w for w in wrong if w != given])[:WRONG_KEPT]
    return {
        "learner": record.learner,
        "snippet_id": record.snippet_id,
        "version": record.version,
        "span": span,
        "text": (texts[span] if span < len(texts) else entry.get("expected", ""))[:200],
        "state": card.state.value,
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due": to_unix(card.due),
        "last_review": to_unix(card.last_review),
        "seen": (row.seen if row is not None else 0) + 1,
        "misses": (row.misses if row is not None else 0) + missed,
        "heat": heat + missed,
        "heat_at": now,
        "wrong": wrong or None,
    }


def decayed(heat: float, since: float, at: float) -> float:
    """`heat` set at unix time `since`, as it stands at `at`."""
    return heat * math.exp2(-max(0.0, at - since) / 86400 / HEAT_HALF_LIFE_DAYS)


def _save_card(db, card, record, at: datetime, scheduler) -> None:
    states = [b["state"] for b in record.blanks]
    recall = not record.practice and bool(states)
    accuracy = sum(s in RECALLED for s in states) / len(states) if states else None
    fsrs_card = (
        reviewed(card.fsrs if card else None, snippet_rating(states, record.outcome, record.seconds), at, scheduler)
        if recall
        else (new_card(at) if card is None else None)
    )
    day = at.date().isoformat()
    days = list(card.days) if card else []
    if not days or days[-1] != day:
        days = (days + [day])[-DAYS_KEPT:]
    history = list(card.history) if card else []
    if recall:
        history = (history + [[round(at.timestamp()), round(accuracy, 4)]])[-HISTORY_KEPT:]
    values = {
        "version": record.version,
        "attempts": (card.attempts if card else 0) + 1,
        "recalls": (card.recalls if card else 0) + recall,
        "days": days,
        "history": history,
        "seconds": (card.seconds if card else 0.0) + (record.seconds or 0.0),
        "last_at": at,
    }
    if recall:
        values.update(best=max(accuracy, card.best or 0.0) if card else accuracy, latest=accuracy)
    if fsrs_card is not None:
        values.update(fsrs=fsrs_card.to_dict(), due=fsrs_card.due)
    if card is None:
        db.execute(NEW_CARD, {"learner": record.learner, "snippet_id": record.snippet_id, "item": "", **values})
    else:
        db.execute(CARD_UPDATE, {**values, **key_values(CARD_KEY, (record.learner, record.snippet_id, ""))})
