"""Drill and exercise pages: show a mask, score a submission."""
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from .. import deps
from ..engine.mask import new_seed, weakest_seed
from ..engine.score import score, splice
from ..engine.tokens import eligible_spans
from ..errors import UserError
from ..execution import execute
from ..feedback import Result, revealed_states
from ..i18n import _
from ..store import AttemptRecord
from ..submission import answers_for, read_fields
from ..templating import render
from ..trainer import Drill, fixed_drill, parse_rate, parse_seed, random_drill
from .views import drill_json, page_context

router = APIRouter()


def drill_url(snippet_id: str, rate: int, seed: int, version: str) -> str:
    """A mask's address: with its version, a shared URL keeps its mask after the snippet changes."""
    return f"/s/{snippet_id}/drill?rate={int(rate)}&seed={int(seed)}&v={version}"  # ids/versions: [a-z0-9-]


@router.get("/s/{snippet_id}")
async def exercise_page(request: Request, snippet_id: str, reveal: bool = False) -> Response:
    snippet = deps.snippet_or_404(request, snippet_id)
    if not snippet.is_exercise:
        return RedirectResponse(f"/s/{snippet_id}/drill", status_code=303)
    drill = fixed_drill(snippet)
    shown = revealed_states(drill.holes) if reveal else None
    return _show(request, drill, shown=shown, revealed=reveal)


@router.get("/s/{snippet_id}/drill")
async def drill_page(request: Request, snippet_id: str, rate: str | None = None, seed: str | None = None,
                     v: str | None = None) -> Response:
    snippet = deps.snippet_or_404(request, snippet_id)
    rate_value = parse_rate(rate)
    if seed is None or seed == "":
        # A URL without a seed gets one, so reloading or sharing it gives the same mask.
        return RedirectResponse(drill_url(snippet_id, rate_value, new_seed(), snippet.version), status_code=303)
    if v and v != snippet.version:
        snippet = deps.library(request).get(snippet_id, v)
        if snippet is None:
            raise UserError(404, _("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id, v=v[:12]))
    return _show(request, random_drill(snippet, rate_value, parse_seed(seed)))


@router.get("/s/{snippet_id}/drill/weak")
async def weak_spots(request: Request, snippet_id: str, rate: str | None = None) -> Response:
    """A mask aimed at the blanks this learner keeps getting wrong (a fresh one without history)."""
    snippet = deps.snippet_or_404(request, snippet_id)
    rate_value = parse_rate(rate)
    misses = deps.store(request).misses(deps.learner_id(request), snippet_id, snippet.version)
    weights = {int(k[1:]): n for k, n in misses.items() if k[0] == "s" and k[1:].isdigit()}
    n = len(eligible_spans(snippet.code))
    seed = weakest_seed(snippet.version, n, rate_value, weights) if weights else new_seed()
    return RedirectResponse(drill_url(snippet_id, rate_value, seed, snippet.version), status_code=303)


@router.post("/s/{snippet_id}/drill")
async def submit_drill(request: Request, snippet_id: str) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, snippet_id, fields)
    drill = random_drill(snippet, parse_rate(fields.get("rate")), parse_seed(fields.get("seed", "")))
    return await _grade(request, drill, fields)


@router.post("/s/{snippet_id}")
async def submit_exercise(request: Request, snippet_id: str) -> Response:
    fields = await read_fields(request, deps.settings(request).max_form_bytes)
    snippet = _submitted_version(request, snippet_id, fields)
    if not snippet.is_exercise:
        raise UserError(404, _("“%(id)s” 没有固定填空。", id=snippet_id))
    return await _grade(request, fixed_drill(snippet), fields)


def _submitted_version(request: Request, snippet_id: str, fields: dict[str, str]):
    deps.snippet_or_404(request, snippet_id)
    version = fields.get("version", "")
    snippet = deps.library(request).get(snippet_id, version) if version else None
    if snippet is None:
        raise UserError(409, _("这个片段已经更新，你作答的版本不再可用。请刷新页面，用新版本重新作答。"))
    return snippet


async def _grade(request: Request, drill: Drill, fields: dict[str, str]) -> Response:
    settings = deps.settings(request)
    answers = answers_for(drill.holes, fields, settings.max_answer_chars)
    responses = _responses(drill, fields, settings.max_answer_chars * 5)
    verdicts = score(list(drill.holes), answers)
    code = splice(drill.snippet.code, list(drill.holes), answers)
    run = await execute(request.app.state.sandbox, drill.snippet, code)
    learner = deps.learner_id(request)
    attempt_id = deps.store(request).record_attempt(AttemptRecord(
        learner, drill.snippet.id, drill.snippet.version, drill.mode, drill.rate, drill.seed,
        {v.key: v.correct for v in verdicts}, getattr(run, "status", None), responses))
    result = Result(tuple(verdicts), run, attempt_id, responses)
    response = _show(request, drill, shown=result.hole_states(), result=result)
    return deps.remember_learner(response, learner)


def _responses(drill: Drill, fields: dict[str, str], limit: int) -> dict[int, str]:
    if drill.mode != "fixed":
        return {}
    texts = {i: fields.get(f"q{i}", "").strip() for i in range(len(drill.snippet.questions))}
    if any(len(t) > limit for t in texts.values()):
        raise UserError(422, _("简答题的回答太长（上限 %(max)s 个字符）。", max=limit))
    return texts


def _show(request: Request, drill: Drill, *, shown=None, result: Result | None = None,
          revealed: bool = False) -> Response:
    context = page_context(drill, shown=shown, result=result, revealed=revealed,
                           next_seed=new_seed(), drill_url=drill_url)
    context["draft"] = draft = not deps.library(request).is_visible(drill.snippet.id)
    current = deps.library(request).get(drill.snippet.id)
    context["latest"] = None if current is None or current.version == drill.snippet.version else current
    return render(request, "snippet.html", context, block="trainer", data=drill_json(drill, result),
                  shell_key=(drill.snippet.id, drill.snippet.version, drill.mode, draft,
                             context["latest"] and context["latest"].version))
