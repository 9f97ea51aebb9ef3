"""Review masks: the blanks this learner's memory says are weakest now (replaces 练薄弱处)."""

from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import Forbidden, UserError
from app.learn.drills import DEFAULT_RATE, chosen_drill, parse_seed
from app.web.deps import LearnerDep, LibraryDep, SnippetDep, StoreDep
from app.web.forms import form_of

from ..engine.mask import new_seed
from ..engine.tokens import eligible_spans
from ..i18n import _
from ..memory.explain import why
from ..memory.forecast import forecast
from ..memory.learner_model import learner_model
from ..memory.pieces import piece_review, pieces_of, valid_pieces
from ..memory.policy import CHOSEN
from ..memory.review import Review, decode, decode_pieces, encode, review_mask, span_lines, spreads_over_lines
from ..memory.state import card_version, first_seen, token_memory
from .params import RetryQuery, ReviewForm, ReviewMask, ReviewQuery
from .trainer import SubmissionDep, grade_page, show, version_or_404

router = APIRouter()


def review_url(snippet_id: str, version: str, rate: int, seed: int, review: Review) -> str:
    unit = "" if review.unit == "token" else f"&unit={review.unit}"
    return (
        f"/s/{snippet_id}/review?rate={rate}{unit}&seed={seed}&v={version}&at={review.at}"
        f"&low={encode(review.low)}&new={encode(review.fresh)}"
    )


@router.get("/s/{snippet_id}/review")
async def review_page(
    request: Request,
    snippet: SnippetDep,
    library: LibraryDep,
    learner: LearnerDep,
    store: StoreDep,
    query: Annotated[ReviewQuery, Query()],
) -> Response:
    if query.low is None:
        rate = query.rate if "rate" in request.query_params else None  # None: the rate they drill at
        return RedirectResponse(_fresh_review(store, learner, snippet, rate, query.unit), status_code=303)
    if query.v != snippet.version:
        snippet = version_or_404(library, snippet.id, query.v)
    seed = query.seed if query.seed is not None else parse_seed("")
    drill = _drill(snippet, query.rate, seed, query.unit, query)
    return show(request, library, _explained(store, learner, drill, "review"))


@router.get("/s/{snippet_id}/retry")
async def retry_page(
    request: Request,
    snippet: SnippetDep,
    library: LibraryDep,
    learner: LearnerDep,
    store: StoreDep,
    query: Annotated[RetryQuery, Query()],
) -> Response:
    """The blanks one submission missed, asked again (a signed URL from its result)."""
    if query.v != snippet.version:
        snippet = version_or_404(library, snippet.id, query.v)
    signed = (
        query.at.isdigit()
        and len(query.at) <= 12
        and request.app.state.retry.made_here(
            snippet.id, snippet.version, query.rate, query.unit, int(query.at), query.miss, query.sig
        )
    )
    if not signed:
        raise Forbidden(_("这个“再练一次”的链接不是本站为你的作答生成的，或已被改动。请从作答结果里重新打开。"))
    mask = ReviewMask(at=query.at, low=query.miss, new="")
    drill = _drill(snippet, query.rate, int(query.at), query.unit, mask)
    return show(request, library, _explained(store, learner, drill, "retry"))


@router.post("/s/{snippet_id}/review")
async def submit_review(
    request: Request, submission: SubmissionDep, form: Annotated[ReviewForm, Depends(form_of(ReviewForm))]
) -> Response:
    drill = _drill(submission.version(form), form.rate, form.seed, form.unit, form)
    return await grade_page(request, submission, drill, form)


def _fresh_review(store, learner: str, snippet, rate: int | None, unit: str) -> str:
    """The address of the mask chosen from this learner's memory as it stands now, at `rate` or
    else the rate the learner last drilled at."""
    seed, now = new_seed(), datetime.now(UTC)
    with store.engine.connect() as db:
        memory = token_memory(
            db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
        )
        model = learner_model(db, learner)
        seen = first_seen(db, learner, snippet.id)
    rate = rate or model.rate or DEFAULT_RATE
    learned = {"scheduler": model.scheduler, "retention": model.retention, "first_seen": seen, "scales": model.scales}
    if unit == "token":
        lines = {"lines": span_lines(snippet.code), "lines_shared": model.lines.shared}
        review = review_mask(snippet.version, _eligible(snippet), rate, seed, memory, now, **lines, **learned)
    else:
        review = piece_review(snippet.version, snippet.code, unit, rate, seed, memory, now, **learned)
    return review_url(snippet.id, snippet.version, rate, seed, review)


def _explained(store, learner: str, drill, kind: str):
    """The drill with what its page says beside the mask: the learner's predicted recall of the
    snippet, and what each blank is in their history (missed last time, due, kept, new)."""
    snippet, now = drill.snippet, datetime.now(UTC)
    with store.engine.connect() as db:
        memory = token_memory(
            db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
        )
        model = learner_model(db, learner)
        ahead = forecast(snippet.code, memory, now, model.scheduler, first_seen(db, learner, snippet.id))
    review = drill.review
    by_lines = kind == "review" and review.unit == "token" and spreads_over_lines(CHOSEN, model.lines.shared)
    explained = why(kind, review.chosen, memory, now, model.scheduler, by_lines)
    return replace(drill, review=replace(review, forecast=ahead, why=explained))


def _eligible(snippet) -> tuple[int, ...]:
    """Span indices a review blank may take: the default kinds' tokens."""
    return tuple(s.index for s in eligible_spans(snippet.code))


def _drill(snippet, rate: int, seed: int, unit: str, mask: ReviewMask):
    at = mask.at
    if unit == "token":
        eligible = frozenset(_eligible(snippet))
        low, fresh = decode(mask.low, eligible), decode(mask.new, eligible)
    else:
        valid = valid_pieces(snippet.code, unit)
        low, fresh = decode_pieces(mask.low, valid), decode_pieces(mask.new, valid)
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
