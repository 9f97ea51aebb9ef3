"""Review masks: the blanks this learner's memory says are weakest now (replaces 练薄弱处)."""
from datetime import datetime, timezone

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.web import deps
from ..engine.mask import new_seed
from ..engine.tokens import eligible_spans
from app.web.errors import UserError
from ..i18n import _
from ..memory.review import Review, decode, encode, review_mask
from ..memory.state import card_version, token_memory
from app.web.forms import read_fields
from app.learn.drills import chosen_drill, parse_rate, parse_seed
from .trainer import _grade, _show, _submitted_version

router = APIRouter()


def review_url(snippet_id: str, version: str, rate: int, seed: int, review: Review) -> str:
    return (f"/s/{snippet_id}/review?rate={rate}&seed={seed}&v={version}&at={review.at}"
            f"&low={encode(review.low)}&new={encode(review.fresh)}")


@router.get("/s/{snippet_id}/review")
async def review_page(request: Request, snippet_id: str) -> Response:
    query = request.query_params
    snippet = deps.snippet_or_404(request, snippet_id)
    rate = parse_rate(query.get("rate"))
    if "low" not in query:
        return RedirectResponse(_fresh_review(request, snippet, rate), status_code=303)
    version = query.get("v", "")
    if version != snippet.version:
        snippet = deps.library(request).get(snippet_id, version)
        if snippet is None:
            raise UserError(404, _("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id, v=version[:12]))
    return _show(request, _drill(snippet, rate, parse_seed(query.get("seed", "")), dict(query)))


@router.post("/s/{snippet_id}/review")
async def submit_review(request: Request, snippet_id: str) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, snippet_id, fields)
    return await _grade(request, _drill(snippet, parse_rate(fields.get("rate")), parse_seed(fields.get("seed", "")),
                                        fields), fields)


def _fresh_review(request: Request, snippet, rate: int) -> str:
    """The address of the mask chosen from this learner's memory as it stands now."""
    learner, store, seed = deps.learner_id(request), deps.store(request), new_seed()
    now = datetime.now(timezone.utc)
    with store.engine.connect() as db:
        memory = token_memory(db, learner, snippet.id, snippet.version, snippet.code,
                              card_version(db, learner, snippet.id))
    review = review_mask(snippet.version, _eligible(snippet), rate, seed, memory, now)
    return review_url(snippet.id, snippet.version, rate, seed, review)


def _eligible(snippet) -> tuple[int, ...]:
    """Span indices a review blank may take: the default kinds' tokens."""
    return tuple(s.index for s in eligible_spans(snippet.code))


def _drill(snippet, rate: int, seed: int, fields: dict[str, str]):
    eligible = frozenset(_eligible(snippet))
    low, fresh = decode(fields.get("low"), eligible), decode(fields.get("new"), eligible)
    at = fields.get("at", "")
    if low is None or fresh is None or set(low) & set(fresh) or not low + fresh or not (at.isdigit() and len(at) <= 12):
        raise UserError(422, _("复习链接不完整或已损坏，请从“复习”按钮重新开始。"))
    return chosen_drill(snippet, rate, seed, Review(int(at), low, fresh))
