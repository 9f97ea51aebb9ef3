"""Correcting memory when an unproven answer is later accepted.

An attempt with a blank judged 运行无法确认 keeps, beside it, the memory of that blank's tokens and
of the code card as they were before the attempt (`keep_unproven`, in the attempt's own
transaction). When a later verdict accepts the answer, the attempt's blank says so and the
memory is reviewed again from that point: the attempt with its corrected state, then every
later attempt as recorded (`replay_tokens`, `replay_card`), so the memory ends where it would
have been had the answer been accepted at once. The learner's current scheduler reviews them
(a fit made meanwhile is not undone).
"""

from datetime import datetime
from types import SimpleNamespace

from sqlalchemy import select

from ..db.moments import utc
from ..db.tables import attempts
from ..db.upserts import upsert
from .learner_model import learner_models
from .record import entry_spans as _spans
from .tables import cards, tokens
from .unproven import TIMES as _TIMES
from .unproven import TOKEN_MEMORY as _TOKEN_MEMORY
from .update import CARD_KEY, TOKEN_COLUMNS, _card_row, _set_card, _set_tokens, _token_row


def replay(db, learner: str, snippet_id: str, starts: dict[str, dict[int, tuple]], card_start: tuple) -> None:
    """A learner's memory of a snippet reviewed again from the kept points: `starts` maps a
    version to its tokens' (memory before, attempt time to replay from); `card_start` is the code
    card's (card before, time)."""
    scheduler = learner_models(db, {learner})[learner].scheduler
    for version, spans in sorted(starts.items()):
        code = _code(db, snippet_id, version)
        for span, (before, since) in sorted(spans.items()):
            replay_tokens(db, (learner, snippet_id, version), span, before, since, code, scheduler)
    replay_card(db, learner, snippet_id, *card_start, scheduler)


def replay_tokens(db, key: tuple, span: int, before: dict | None, since: datetime, code: str | None, scheduler) -> None:
    learner, snippet_id, version = key
    row = SimpleNamespace(**before) if before else None
    text = before["text"] if before else None
    values = None
    for attempt in _attempts_since(db, learner, snippet_id, since, version):
        for entry in attempt.blanks or ():
            if span in _spans(entry):
                text = text or _text(code, span, entry)
                values = _token_row(key, span, text, entry, row, utc(attempt.created_at), scheduler)
                row = SimpleNamespace(
                    **dict(zip(("learner", "snippet_id", "version", "span"), values[:4])),
                    **dict(zip(_TOKEN_MEMORY, values[4:])),
                )
    if values is not None:
        names = ("learner", "snippet_id", "version", "span", *_TOKEN_MEMORY)
        db.execute(upsert(db, tokens, TOKEN_COLUMNS, _set_tokens), [dict(zip(names, values))])


def replay_card(db, learner: str, snippet_id: str, before: dict | None, since: datetime, scheduler) -> None:
    card = _card_namespace(before)
    values = None
    for attempt in _attempts_since(db, learner, snippet_id, since):
        record = SimpleNamespace(
            learner=learner,
            snippet_id=snippet_id,
            version=attempt.version,
            blanks=attempt.blanks or (),
            practice=attempt.practice,
            outcome=attempt.outcome,
            seconds=attempt.seconds,
        )
        values = _card_row(card, record, utc(attempt.created_at), scheduler)
        card = SimpleNamespace(**values)
    if values is not None:
        db.execute(upsert(db, cards, CARD_KEY, _set_card), [values])


def _card_namespace(before: dict | None):
    if before is None:
        return None
    values = dict(before)
    for name in _TIMES:
        if values[name] is not None:
            values[name] = datetime.fromisoformat(values[name])
    return SimpleNamespace(**values)


def _attempts_since(db, learner: str, snippet_id: str, since: datetime, version: str | None = None):
    query = select(
        attempts.c.version,
        attempts.c.blanks,
        attempts.c.practice,
        attempts.c.outcome,
        attempts.c.seconds,
        attempts.c.created_at,
    ).where(attempts.c.learner == learner, attempts.c.snippet_id == snippet_id, attempts.c.created_at >= since)
    if version is not None:
        query = query.where(attempts.c.version == version, attempts.c.practice.is_(False))
    return db.execute(query.order_by(attempts.c.created_at, attempts.c.id)).all()


def _code(db, snippet_id: str, version: str) -> str | None:
    from .versions import stored_code

    return stored_code(db, snippet_id, version)


def _text(code: str | None, span: int, entry: dict) -> str:
    from ..engine.tokens import candidate_spans

    spans = candidate_spans(code) if code else ()
    return (spans[span].text if span < len(spans) else entry.get("expected", ""))[:200]
