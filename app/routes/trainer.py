"""Drill and exercise pages: show a mask, grade a submission."""

import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app import observability
from app.engine.inputs import HoleState
from app.engine.mask import new_seed
from app.engine.tokens import DEFAULT_KINDS
from app.errors import Conflict, NotFound
from app.i18n import _
from app.learn.drills import DEFAULT_UNIT, Drill, fixed_drill, mask_query, random_drill, revealed_keys
from app.learn.feedback import Result
from app.learn.grading import Submitter, grade
from app.learn.retry import missed_blanks
from app.memory import reveals
from app.snippets.library import SnippetLibrary
from app.snippets.model import Snippet
from app.web.deps import (
    ClientAddress,
    GradingDep,
    LearnerDep,
    LibraryDep,
    NewLearner,
    SnippetDep,
    built,
    remember_learner,
)
from app.web.forms import form_of
from app.web.templating import render, wants_json

from .params import Answers, DrillForm, DrillQuery, DueQuestion
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


@dataclass
class Submission:
    """Who submits a snippet's form, and what grading it uses."""

    snippet: SnippetDep
    library: LibraryDep
    learner: LearnerDep
    minted: NewLearner  # no cookie came: an id made just now
    client: ClientAddress
    services: GradingDep

    def version(self, form: Answers) -> Snippet:
        """The version the form answered (a 409 when it is no longer kept)."""
        snippet = self.library.get(self.snippet.id, form.version) if form.version else None
        if snippet is None:
            raise Conflict(_("这个片段已经更新，你作答的版本不再可用。请刷新页面，用新版本重新作答。"))
        return snippet


SubmissionDep = Annotated[Submission, Depends(built(Submission))]


@router.get("/s/{snippet_id}")
async def exercise_page(
    request: Request, snippet: SnippetDep, library: LibraryDep, due: DueQuestion = None
) -> Response:
    if not snippet.is_exercise:
        return RedirectResponse(f"/s/{snippet.id}/drill", status_code=303)
    return show(request, library, fixed_drill(snippet), due=due)


@router.get("/s/{snippet_id}/drill")
async def drill_page(
    request: Request, snippet: SnippetDep, library: LibraryDep, query: Annotated[DrillQuery, Query()]
) -> Response:
    if query.seed is None:
        # A URL without a seed gets one, so reloading or sharing it gives the same mask.
        url = drill_url(snippet.id, query.rate, new_seed(), snippet.version, query.unit, query.kinds)
        return RedirectResponse(url, status_code=303)
    if query.v and query.v != snippet.version:
        snippet = version_or_404(library, snippet.id, query.v)
    return show(request, library, random_drill(snippet, query.rate, query.seed, query.unit, query.kinds))


def version_or_404(library: SnippetLibrary, snippet_id: str, version: str) -> Snippet:
    snippet = library.get(snippet_id, version)
    if snippet is None:
        raise NotFound(_("片段 “%(id)s” 没有版本 %(v)s。", id=snippet_id, v=version[:12]))
    return snippet


@router.get("/s/{snippet_id}/drill/weak")
async def weak_spots(snippet_id: str, rate: Annotated[DrillQuery, Query()]) -> Response:
    """The old 练薄弱处 address: the review mask replaced it."""
    return RedirectResponse(f"/s/{snippet_id}/review?rate={rate.rate}", status_code=303)


@router.post("/s/{snippet_id}/drill")
async def submit_drill(
    request: Request, submission: SubmissionDep, form: Annotated[DrillForm, Depends(form_of(DrillForm))]
) -> Response:
    drill = random_drill(submission.version(form), form.rate, form.seed, form.unit, form.kinds)
    return await grade_page(request, submission, drill, form)


@router.post("/s/{snippet_id}")
async def submit_exercise(
    request: Request,
    submission: SubmissionDep,
    form: Annotated[Answers, Depends(form_of(Answers))],
    due: DueQuestion = None,
) -> Response:
    snippet = submission.version(form)
    if not snippet.is_exercise:
        raise NotFound(_("“%(id)s” 没有固定填空。", id=snippet.id))
    return await grade_page(request, submission, fixed_drill(snippet), form, due=due)


async def grade_page(
    request: Request, submission: Submission, drill: Drill, form: Answers, *, due: str | None = None
) -> Response:
    """Grade the submission (the learn use case), then show its outcome: htmx swaps in the outcome
    only, since the inputs on the page already hold these answers."""
    if form.reveal is not None:  # a blank's reveal button (or "reveal all"), not the answers' submission
        return _reveal(request, submission, drill, form, due)
    learner, clock = submission.learner, observability.Stopwatch()
    submitter = Submitter(learner, submission.client, submission.minted)
    result = await grade(drill, form.fields(), submitter, submission.services, clock)
    status = 200 if result.saved else 503
    with clock.measure("render"):
        response = show(request, submission.library, drill, result=result, block="outcome", status=status, due=due)
    observability.graded(request, drill, result, clock)
    return remember_learner(response, learner)


def record_reveal(submission: Submission, drill: Drill, keys) -> frozenset[str]:
    """Every blank of this mask the learner has revealed, once `keys` are kept too."""
    learner, mask = submission.learner, reveals.mask_key(drill.snippet.id, drill.snippet.version, drill.holes)
    with submission.services.store.engine.begin() as db:
        reveals.record(db, learner, mask, keys)
        return reveals.recorded(db, learner, mask)


def _reveal(request: Request, submission: Submission, drill: Drill, form: Answers, due: str | None) -> Response:
    """The answers asked for, once the server keeps that they were revealed: JSON for app.js,
    else the page again with them shown and the learner's other answers kept (no script)."""
    asked = revealed_keys(drill.holes, {"revealed": form.reveal or ""})
    shown_keys = record_reveal(submission, drill, asked)
    fields = form.fields()
    if wants_json(request):
        response = JSONResponse({"revealed": {h.key: h.answer for h in drill.holes if h.key in asked}})
    else:
        shown = {
            h.key: HoleState(h.answer, "revealed") if h.key in shown_keys else HoleState(fields.get(h.key, ""))
            for h in drill.holes
        }
        # every answer of an exercise shown: its reference answers and explanations too
        every = drill.mode == "fixed" and len(shown_keys) == len(drill.holes)
        response = show(request, submission.library, drill, shown=shown, revealed=every, due=due)
    return remember_learner(response, submission.learner)


def show(
    request: Request,
    library: SnippetLibrary,
    drill: Drill,
    *,
    shown=None,
    result: Result | None = None,
    revealed: bool = False,
    block: str = "trainer",
    status: int = 200,
    due: str | None = None,
) -> Response:
    if wants_json(request):  # the drill and its result only: none of the page's context
        return JSONResponse(drill_json(drill, result), status_code=status)
    context = snippet_page(library, drill, shown=shown, result=result, revealed=revealed)
    context["retry"] = _retry(request, drill, result)
    context["due_question"] = _due_question(drill, due)
    return render(request, "snippet.html", context, block=block, status=status)


def _due_question(drill: Drill, due: str | None) -> int | None:
    """The index of the question a review came for (`q1` → 1), if the exercise has it."""
    index = int(due[1:]) if due else None
    return index if index is not None and index < len(drill.snippet.questions) else None


def _retry(request: Request, drill: Drill, result: Result | None) -> dict | None:
    """Where the blanks this submission missed are asked again, and how many (None: no link)."""
    missed = missed_blanks(drill, result) if result is not None and result.saved else ()
    if not missed:
        return None
    at, retry = int(time.time()), request.app.state.retry
    url = retry.url(drill.snippet.id, drill.snippet.version, drill.rate, drill.unit, at, missed)
    return {"url": url, "blanks": len(missed)}


def snippet_page(
    library: SnippetLibrary, drill: Drill, *, shown=None, result: Result | None = None, revealed: bool = False
) -> dict:
    """The snippet page's context."""
    snippet = drill.snippet
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
