"""Drill and exercise pages: show a mask, grade a submission."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app import observability
from app.engine.inputs import HoleState
from app.engine.mask import new_seed
from app.engine.tokens import DEFAULT_KINDS
from app.engine.units import UNITS
from app.errors import Conflict, NotFound
from app.i18n import _
from app.learn.drills import (
    DEFAULT_UNIT,
    Drill,
    fixed_drill,
    mask_query,
    parse_kinds,
    parse_rate,
    parse_seed,
    parse_unit,
    random_drill,
    revealed_keys,
)
from app.learn.feedback import Result
from app.learn.grading import Submitter, grade
from app.memory import reveals
from app.web import client_address, deps
from app.web.forms import read_fields
from app.web.templating import render, wants_json

from .views import drill_json, page_context

router = APIRouter()


def drill_url(
    snippet_id: str,
    rate: int,
    seed: int,
    version: str,
    unit: str = DEFAULT_UNIT,
    kinds: tuple[str, ...] = DEFAULT_KINDS,
) -> str:
    """A mask's address: every input of the mask, so the URL reproduces it; with its version, a
    shared URL keeps its mask after the snippet changes. Defaults are left out."""
    # ids/versions: [a-z0-9-]; rates and seeds are ints
    return f"/s/{snippet_id}/drill?rate={int(rate)}&seed={int(seed)}{mask_query(unit, kinds)}&v={version}"


def _mask_choice(values) -> tuple[str, tuple[str, ...]]:
    """The unit and kinds of a query or form (`kinds` as one list or repeated)."""
    kinds = values.getlist("kinds") if hasattr(values, "getlist") else [values.get("kinds") or ""]
    return parse_unit(values.get("unit")), parse_kinds(",".join(kinds))


@router.get("/s/{snippet_id}")
async def exercise_page(request: Request, snippet_id: str) -> Response:
    snippet = deps.snippet_or_404(request, snippet_id)
    if not snippet.is_exercise:
        return RedirectResponse(f"/s/{snippet_id}/drill", status_code=303)
    return _show(request, fixed_drill(snippet))


# Drill pages and submissions read their parameters themselves (parse_rate/parse_seed say what is
# wrong in the learner's words); declaring them would cost FastAPI's validation on every mask.
DRILL_QUERY = {
    "parameters": [
        {"name": "rate", "in": "query", "schema": {"type": "integer", "minimum": 10, "maximum": 50}},
        {"name": "seed", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "unit", "in": "query", "schema": {"type": "string", "enum": list(UNITS)}},
        {
            "name": "kinds",
            "in": "query",
            "schema": {"type": "string"},
            "description": "comma-separated: names, literals, operators, punctuation",
        },
        {"name": "v", "in": "query", "schema": {"type": "string"}, "description": "snippet version"},
    ]
}


@router.get("/s/{snippet_id}/drill", openapi_extra=DRILL_QUERY)
async def drill_page(request: Request) -> Response:
    snippet_id, query = request.path_params["snippet_id"], request.query_params
    rate, seed, v = query.get("rate"), query.get("seed"), query.get("v")
    snippet = deps.snippet_or_404(request, snippet_id)
    rate_value = parse_rate(rate)
    unit, kinds = _mask_choice(query)
    if seed is None or seed == "":
        # A URL without a seed gets one, so reloading or sharing it gives the same mask.
        return RedirectResponse(
            drill_url(snippet_id, rate_value, new_seed(), snippet.version, unit, kinds), status_code=303
        )
    if v and v != snippet.version:
        snippet = deps.library(request).get(snippet_id, v)
        if snippet is None:
            raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id, v=v[:12]))
    return _show(request, random_drill(snippet, rate_value, parse_seed(seed), unit, kinds))


@router.get("/s/{snippet_id}/drill/weak")
async def weak_spots(snippet_id: str, rate: str | None = None) -> Response:
    """The old 练薄弱处 address: the review mask replaced it."""
    return RedirectResponse(f"/s/{snippet_id}/review?rate={parse_rate(rate)}", status_code=303)


@router.post("/s/{snippet_id}/drill")
async def submit_drill(request: Request) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, request.path_params["snippet_id"], fields)
    unit, kinds = _mask_choice(fields)
    drill = random_drill(snippet, parse_rate(fields.get("rate")), parse_seed(fields.get("seed", "")), unit, kinds)
    return await _grade(request, drill, fields)


@router.post("/s/{snippet_id}")
async def submit_exercise(request: Request, snippet_id: str) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, snippet_id, fields)
    if not snippet.is_exercise:
        raise NotFound(_("“%(id)s” 没有固定填空。", id=snippet_id))
    return await _grade(request, fixed_drill(snippet), fields)


def _submitted_version(request: Request, snippet_id: str, fields: dict[str, str]):
    deps.snippet_or_404(request, snippet_id)
    version = fields.get("version", "")
    snippet = deps.library(request).get(snippet_id, version) if version else None
    if snippet is None:
        raise Conflict(_("这个片段已经更新，你作答的版本不再可用。请刷新页面，用新版本重新作答。"))
    return snippet


async def _grade(request: Request, drill: Drill, fields: dict[str, str]) -> Response:
    """Grade the submission (the learn use case), then show its outcome: htmx swaps in the outcome
    only, since the inputs on the page already hold these answers."""
    if "reveal" in fields:  # a blank's reveal button (or "reveal all"), not the answers' submission
        return _reveal(request, drill, fields)
    learner, clock = deps.learner_id(request), observability.Stopwatch()
    minted = getattr(request.state, "new_learner", None) == learner  # no cookie: an id made just now
    submitter = Submitter(learner, client_address.of_request(request), minted)
    result = await grade(drill, fields, submitter, deps.grading_services(request), clock)
    response = _show(request, drill, result=result, block="outcome", status=200 if result.saved else 503)
    observability.graded(request, drill, result, clock)
    return deps.remember_learner(response, learner)


def record_reveal(request: Request, drill: Drill, keys) -> tuple[str, frozenset[str]]:
    """The learner, and every blank of this mask they have revealed, once `keys` are kept too."""
    learner, mask = deps.learner_id(request), reveals.mask_key(drill.snippet.id, drill.snippet.version, drill.holes)
    with deps.store(request).engine.begin() as db:
        reveals.record(db, learner, mask, keys)
        return learner, reveals.recorded(db, learner, mask)


def _reveal(request: Request, drill: Drill, fields: dict[str, str]) -> Response:
    """The answers asked for, once the server keeps that they were revealed: JSON for app.js,
    else the page again with them shown and the learner's other answers kept (no script)."""
    asked = revealed_keys(drill.holes, {"revealed": fields.get("reveal", "")})
    learner, shown_keys = record_reveal(request, drill, asked)
    if wants_json(request):
        response = JSONResponse({"revealed": {h.key: h.answer for h in drill.holes if h.key in asked}})
    else:
        shown = {
            h.key: HoleState(h.answer, "revealed") if h.key in shown_keys else HoleState(fields.get(h.key, ""))
            for h in drill.holes
        }
        # every answer of an exercise shown: its reference answers and explanations too
        every = drill.mode == "fixed" and len(shown_keys) == len(drill.holes)
        response = _show(request, drill, shown=shown, revealed=every)
    return deps.remember_learner(response, learner)


def _show(
    request: Request,
    drill: Drill,
    *,
    shown=None,
    result: Result | None = None,
    revealed: bool = False,
    block: str = "trainer",
    status: int = 200,
) -> Response:
    if wants_json(request):  # the drill and its result only: none of the page's context
        return JSONResponse(drill_json(drill, result), status_code=status)
    context = snippet_page(request, drill, shown=shown, result=result, revealed=revealed)
    return render(request, "snippet.html", context, block=block, status=status)


def snippet_page(
    request: Request, drill: Drill, *, shown=None, result: Result | None = None, revealed: bool = False
) -> dict:
    """The snippet page's context."""
    snippet, library = drill.snippet, deps.library(request)
    current = library.get(snippet.id)
    latest = None if current is None or current.version == snippet.version else current
    # a new mask is always of the latest version
    fresh = (
        drill_url(snippet.id, drill.rate, new_seed(), (latest or snippet).version, drill.unit, drill.kinds)
        if drill.rate
        else ""
    )
    context = page_context(drill, shown=shown, result=result, revealed=revealed, fresh_url=fresh, drill_url=drill_url)
    context["draft"] = not library.is_visible(snippet.id)
    context["latest"] = latest
    return context
