"""Keeping learner memory up to date, inside the transaction that writes each batch of attempts."""

import math
from datetime import UTC, datetime
from operator import itemgetter

from sqlalchemy import and_, bindparam, insert, select, update

from ..db.tables import attempts
from ..db.upserts import upsert
from ..engine.tokens import candidate_spans
from .calibration import blank_term
from .learner_model import calibrate, count_reviews, learner_model, learner_models, remember_rates, self_rated_scheduler
from .line_memory import freshest, line_term
from .record import RECALLED
from .record import entry_spans as _spans
from .schedule import SELF_RATING, TOKEN_RATING, new_card, reviewed, snippet_rating, token_reviewed
from .tables import cards, tokens
from .unproven import keep_unproven
from .versions import stored_code, version_map

HEAT_HALF_LIFE_DAYS = 7.0
# A recall this long after the token's previous test is evidence of memory, not of the minutes
# before: the next day counts even a little earlier in the day than the last practice.
SPACING_SECONDS = 20 * 3600
WRONG_KEPT = 5
DAYS_KEPT = 400
HISTORY_KEPT = 60
CARD_KEY = ("learner", "snippet_id", "item")
TOKEN_KEY = ("learner", "snippet_id", "version")
TOKEN_COLUMNS = TOKEN_KEY + ("span",)
TOKEN_ROW = tuple(c.name for c in tokens.c)  # a token row's values, in the table's order
# Statements of every attempt, built once (building one costs more than running it on SQLite;
# SQLAlchemy caches what they compile to): what a review reads of the stored memory of some
# spans of a version (their key is known, their text is the code's), and the code cards of a
# learner × snippet grid (the pairs wanted are picked from it).
MEMORY_AT = select(*(tokens.c[n] for n in TOKEN_ROW if n not in TOKEN_KEY + ("text",))).where(
    *(tokens.c[n] == bindparam(n) for n in TOKEN_KEY), tokens.c.span.in_(bindparam("spans", expanding=True))
)
# The line evidence (line_memory.py) reads when every token of the version was last tested.
LAST_TESTS = select(tokens.c.span, tokens.c.stability, tokens.c.last_review).where(
    *(tokens.c[n] == bindparam(n) for n in TOKEN_KEY), tokens.c.stability.is_not(None)
)
CODE_CARDS = select(cards).where(
    cards.c.item == "",
    cards.c.learner.in_(bindparam("learners", expanding=True)),
    cards.c.snippet_id.in_(bindparam("snippets", expanding=True)),
)


def apply_attempts(db, batch: list) -> None:
    """`batch`: (attempt id, AttemptRecord, time) as the store writes them. Each round of the
    batch is read and written with one statement per table; a round holds a learner's snippet
    once at most, since a second attempt on it must see what the first one changed."""
    ids = {id(r): i for i, r, _ in batch if r.unproven} if any(r.unproven for _, r, _ in batch) else None
    for items in _rounds(batch):
        if ids:  # what the round is about to change, kept beside each unproven blank
            keep_unproven(db, [(ids[id(r)], r, at) for r, at in items if id(r) in ids])
        _apply_round(db, items)


def _rounds(batch: list) -> list[list]:
    """The batch's (record, time) pairs in order, cut wherever a learner's snippet comes again."""
    rounds: list[list] = [[]]
    seen: set[tuple[str, str]] = set()
    for _attempt_id, record, at in batch:
        key = (record.learner, record.snippet_id)
        if key in seen:
            rounds.append([])
            seen.clear()
        rounds[-1].append((record, at))
        seen.add(key)
    return [items for items in rounds if items]


def _apply_round(db, items: list) -> None:
    found = _cards(db, [(r.learner, r.snippet_id) for r, _ in items])
    for record, _at in items:
        card = found.get((record.learner, record.snippet_id))
        if card is not None and card.version != record.version:
            _carry_over(db, record, card.version)
    models_now = learner_models(db, {r.learner for r, _ in items})
    schedulers = {learner: model.scheduler for learner, model in models_now.items()}
    token_rows, reviews, terms, line_terms = _reviewed_tokens(
        db, [(r, at) for r, at in items if not r.practice], schedulers
    )
    if token_rows:
        db.execute(upsert(db, tokens, TOKEN_COLUMNS, _set_tokens), [dict(zip(TOKEN_ROW, row)) for row in token_rows])
    count_reviews(db, reviews)
    calibrate(db, models_now, terms, line_terms)
    remember_rates(db, {r.learner: r.rate for r, _at in items if r.mode in ("random", "review") and r.rate})
    card_rows = [_card_row(found.get((r.learner, r.snippet_id)), r, at, schedulers[r.learner]) for r, at in items]
    db.execute(upsert(db, cards, CARD_KEY, _set_card), sorted(card_rows, key=_card_key))


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
    scheduler = self_rated_scheduler(learner_model(db, learner).scheduler, SELF_RATING[rating])
    fsrs_card = reviewed(card.fsrs if card else None, SELF_RATING[rating], at, scheduler)
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
        db.execute(update(cards).where(_the_card(learner, snippet_id, item)).values(**changes))


def _card(db, learner: str, snippet_id: str, item: str):
    return db.execute(select(cards).where(_the_card(learner, snippet_id, item))).first()


def _the_card(learner: str, snippet_id: str, item: str):
    return and_(cards.c.learner == learner, cards.c.snippet_id == snippet_id, cards.c.item == item)


def _of_version(learner: str, snippet_id: str, version: str):
    """The token rows of one learner's snippet version."""
    return and_(tokens.c.learner == learner, tokens.c.snippet_id == snippet_id, tokens.c.version == version)


def _set_tokens(table, excluded) -> dict:
    """A token's row replaced by the new one (its memory was read in this transaction)."""
    return {c.name: excluded[c.name] for c in table.c if c.name not in TOKEN_COLUMNS}


def _carry_over(db, record, old_version: str) -> None:
    """First attempt on a new version: copy the memory of tokens that survived the edit."""
    mine = _of_version(record.learner, record.snippet_id, record.version)
    if db.execute(select(tokens.c.span).where(mine).limit(1)).first() is not None:
        return  # this version has memory of its own already
    old_code = stored_code(db, record.snippet_id, old_version)
    if not old_code or not record.code:
        return
    mapping = version_map(old_code, record.code)
    old = db.execute(select(tokens).where(_of_version(record.learner, record.snippet_id, old_version))).all()
    rows = [
        {**row._mapping, "version": record.version, "span": mapping[row.span]} for row in old if row.span in mapping
    ]
    if rows:
        db.execute(insert(tokens), rows)


def _reviewed_tokens(db, items: list, schedulers: dict) -> tuple[list[tuple], dict[str, int], dict, dict]:
    """The new rows of every token the attempts reviewed (`TOKEN_ROW`s, in key order: concurrent
    writers lock rows in one order), how many each learner reviewed, and each learner's blanks
    as predictions of their stored memory (calibration.blank_term) and of their lines'
    (line_memory.line_term)."""
    wanted = {
        (record.learner, record.snippet_id, record.version): {
            i: entry for entry in record.blanks for i in _spans(entry)
        }
        for record, _at in items
    }
    old = _token_rows(db, wanted)
    rows, reviews, terms, line_terms = [], {}, {}, {}
    for record, at in items:
        key = (record.learner, record.snippet_id, record.version)
        spans = candidate_spans(record.code) if record.code else ()  # by span index
        scheduler = schedulers[record.learner]
        stored = old.get(key, {})
        fresh = _line_tests(db, key, record.code) if stored and record.code else {}
        for span, entry in wanted[key].items():
            text = spans[span].text if span < len(spans) else entry.get("expected", "")
            row, recalled = stored.get(span), entry["state"] in RECALLED
            rows.append(_token_row(key, span, text[:200], entry, row, at, scheduler))
            term = blank_term(row, recalled, at.timestamp(), scheduler)
            if term is not None:
                terms.setdefault(record.learner, []).append(term)
            both = line_term(record.code, span, stored, fresh, recalled, at.timestamp(), scheduler) if fresh else None
            if both is not None:
                line_terms.setdefault(record.learner, []).append(both)
        reviews[record.learner] = reviews.get(record.learner, 0) + len(wanted[key])
    rows.sort(key=_ROW_KEY)
    return rows, reviews, terms, line_terms


_ROW_KEY = itemgetter(0, 1, 2, 3)  # learner, snippet, version, span


def _line_tests(db, key: tuple, code: str) -> dict:
    """Each line's freshest tests (line_memory.freshest) of this (learner, snippet, version)."""
    return freshest(code, {row.span: row for row in db.execute(LAST_TESTS, dict(zip(TOKEN_KEY, key)))})


def _token_rows(db, wanted: dict[tuple, object]) -> dict[tuple, dict]:
    """(learner, snippet, version) → span → stored memory, of the wanted spans that have any:
    one query each (a single one over (key, span) tuples cost more)."""
    found: dict[tuple, dict] = {}
    for key, spans in wanted.items():
        if not spans:
            continue  # an attempt without token blanks
        for row in db.execute(MEMORY_AT, {**dict(zip(TOKEN_KEY, key)), "spans": sorted(spans)}):
            found.setdefault(key, {})[row.span] = row
    return found


def _cards(db, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], object]:
    """The code cards (item "") of these (learner, snippet) pairs that have one."""
    if not pairs:
        return {}
    grid = {"learners": sorted({p[0] for p in pairs}), "snippets": sorted({p[1] for p in pairs})}
    rows = db.execute(CODE_CARDS, grid)
    wanted = set(pairs)
    return {(r.learner, r.snippet_id): r for r in rows if (r.learner, r.snippet_id) in wanted}


def _token_row(key: tuple, span: int, text: str, entry: dict, row, at: datetime, scheduler) -> tuple:
    """The token's `TOKEN_ROW` after this review; `row` its stored memory (None: new)."""
    state = entry["state"]
    card = token_reviewed(row, TOKEN_RATING[state], at, scheduler)
    missed = state not in RECALLED
    now = at.timestamp()
    if row is None:
        seen, misses, heat, stored = 1, int(missed), float(missed), None
    else:
        seen, misses, stored = row.seen + 1, row.misses + missed, row.wrong
        heat = (decayed(row.heat, row.heat_at, now) if row.heat_at else 0.0) + missed
    given = entry.get("given", "").strip()
    if state in ("wrong", "accepted", "unproven") and given:
        wrong = ([given] + [w for w in stored or () if w != given])[:WRONG_KEPT]
    else:
        wrong = stored
    return (*key, span, text, *card, seen, misses, heat, now, wrong or None, spaced_recall(row, missed, now), missed)


def spaced_recall(row, missed: bool, now: float) -> float | None:
    """When the token was last recalled SPACING_SECONDS or more after its previous test; a miss
    clears it: "known" needs it again."""
    if missed:
        return None
    if row is not None and row.last_review is not None and now - row.last_review >= SPACING_SECONDS:
        return now
    return row.spaced if row is not None else None


def decayed(heat: float, since: float, at: float) -> float:
    """`heat` set at unix time `since`, as it stands at `at`."""
    return heat * math.exp2(-max(0.0, at - since) / 86400 / HEAT_HALF_LIFE_DAYS)


def _card_row(card, record, at: datetime, scheduler) -> dict:
    """The code card after this attempt: the whole row, whether it is new or not."""
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
    best, latest = (card.best, card.latest) if card else (None, None)
    if recall:
        best, latest = max(accuracy, best or 0.0) if card else accuracy, accuracy
    return {
        "learner": record.learner,
        "snippet_id": record.snippet_id,
        "item": "",
        "version": record.version,
        "fsrs": fsrs_card.to_dict() if fsrs_card is not None else card.fsrs,
        "due": fsrs_card.due if fsrs_card is not None else card.due,
        "attempts": (card.attempts if card else 0) + 1,
        "recalls": (card.recalls if card else 0) + recall,
        "best": best,
        "latest": latest,
        "seconds": (card.seconds if card else 0.0) + (record.seconds or 0.0),
        "days": days,
        "history": history,
        "last_at": at,
    }


def _card_key(row: dict) -> tuple:
    return row["learner"], row["snippet_id"], row["item"]


def _set_card(table, excluded) -> dict:
    """A card's row replaced by the new one (it was read in this transaction)."""
    return {c.name: excluded[c.name] for c in table.c if c.name not in CARD_KEY}
