"""Review masks: the blanks this learner's memory says are weakest now (replaces 练薄弱处)."""

from dataclasses import replace
from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import NotFound, UserError
from app.learn.drills import chosen_drill, parse_rate, parse_seed, parse_unit
from app.web import deps
from app.web.forms import read_fields

from ..engine.mask import new_seed
from ..engine.tokens import eligible_spans
from ..i18n import _
from ..memory.forecast import forecast
from ..memory.learner_model import learner_model
from ..memory.pieces import piece_review, pieces_of, valid_pieces
from ..memory.review import Review, decode, decode_pieces, encode, review_mask
from ..memory.state import card_version, first_seen, token_memory
from .trainer import _grade, _show, _submitted_version

router = APIRouter()


def review_url(snippet_id: str, version: str, rate: int, seed: int, review: Review) -> str:
    unit = "" if review.unit == "token" else f"&unit={review.unit}"
    return (
        f"/s/{snippet_id}/review?rate={rate}{unit}&seed={seed}&v={version}&at={review.at}"
        f"&low={encode(review.low)}&new={encode(review.fresh)}"
    )


@router.get("/s/{snippet_id}/review")
async def review_page(request: Request, snippet_id: str) -> Response:
    query = request.query_params
    snippet = deps.snippet_or_404(request, snippet_id)
    rate, unit = parse_rate(query.get("rate")), parse_unit(query.get("unit"))
    if "low" not in query:
        return RedirectResponse(_fresh_review(request, snippet, rate, unit), status_code=303)
    version = query.get("v", "")
    if version != snippet.version:
        snippet = deps.library(request).get(snippet_id, version)
        if snippet is None:
            raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id, v=version[:12]))
    drill = _drill(snippet, rate, parse_seed(query.get("seed", "")), dict(query))
    return _show(request, replace(drill, review=replace(drill.review, forecast=_forecast(request, snippet))))


@router.post("/s/{snippet_id}/review")
async def submit_review(request: Request, snippet_id: str) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, snippet_id, fields)
    return await _grade(
        request, _drill(snippet, parse_rate(fields.get("rate")), parse_seed(fields.get("seed", "")), fields), fields
    )


def _fresh_review(request: Request, snippet, rate: int, unit: str) -> str:
    """The address of the mask chosen from this learner's memory as it stands now."""
    learner, store, seed = deps.learner_id(request), deps.store(request), new_seed()
    now = datetime.now(UTC)
    with store.engine.connect() as db:
        memory = token_memory(
            db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
        )
        model = learner_model(db, learner)
        seen = first_seen(db, learner, snippet.id)
    learned = {"scheduler": model.scheduler, "retention": model.retention, "first_seen": seen}
    if unit == "token":
        review = review_mask(snippet.version, _eligible(snippet), rate, seed, memory, now, **learned)
    else:
        review = piece_review(snippet.version, snippet.code, unit, rate, seed, memory, now, **learned)
    return review_url(snippet.id, snippet.version, rate, seed, review)


def _forecast(request: Request, snippet):
    """This learner's predicted recall of the snippet now and in a week (shown beside the mask)."""
    learner, now = deps.learner_id(request), datetime.now(UTC)
    with deps.store(request).engine.connect() as db:
        memory = token_memory(
            db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
        )
        return forecast(
            snippet.code, memory, now, learner_model(db, learner).scheduler, first_seen(db, learner, snippet.id)
        )


def _eligible(snippet) -> tuple[int, ...]:
    """Span indices a review blank may take: the default kinds' tokens."""
    return tuple(s.index for s in eligible_spans(snippet.code))


def _drill(snippet, rate: int, seed: int, fields: dict[str, str]):
    unit, at = parse_unit(fields.get("unit")), fields.get("at", "")
    if unit == "token":
        eligible = frozenset(_eligible(snippet))
        low, fresh = decode(fields.get("low"), eligible), decode(fields.get("new"), eligible)
    else:
        valid = valid_pieces(snippet.code, unit)
        low, fresh = decode_pieces(fields.get("low"), valid), decode_pieces(fields.get("new"), valid)
    if (
        low is None
        or fresh is None
        or not low + fresh
        or not (at.isdigit() and len(at) <= 12)
        or (unit != "token" and decode_pieces(encode(low + fresh), valid) is None)
        or set(low) & set(fresh)
    ):
        raise UserError(_("复习链接不完整或已损坏，请从“复习”按钮重新开始。"))
    pieces = pieces_of(snippet.code, unit) if unit != "token" else None
    return chosen_drill(snippet, rate, seed, Review(int(at), low, fresh, unit), pieces)
