"""What teachers do to snippets, shared by the teacher pages and the JSON API."""

from dataclasses import dataclass

from fastapi import Request

from app.i18n import _
from app.snippets.errors import Problem
from app.snippets.model import Snippet
from app.snippets.places import file_place
from app.snippets.validate import Report, validate
from app.web import deps
from app.web.errors import UserError


@dataclass(frozen=True)
class Outcome:
    report: Report
    saved: Snippet | None


def uploaded_or_404(request: Request, snippet_id: str) -> Snippet:
    """A snippet teachers may change: any snippet the server has, bundled ones read-only."""
    snippet = deps.library(request).get(snippet_id)
    if snippet is None:
        raise UserError(404, _("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    return snippet


def changeable_or_403(request: Request, snippet_id: str) -> Snippet:
    snippet = uploaded_or_404(request, snippet_id)
    if snippet_id in deps.catalog(request).bundled:
        raise UserError(
            403, _("“%(id)s” 是随程序发布的内置片段，不能在这里修改；请以新 id 上传一份副本。", id=snippet_id)
        )
    return snippet


async def submit(request: Request, data: bytes | str, snippet_id: str, *, editing: bool) -> Outcome:
    """Validate an upload or edit; save it only when every rule holds."""
    catalog = deps.catalog(request)
    report = await validate(
        data,
        snippet_id,
        sandbox=request.app.state.sandbox,
        editing=editing,
        taken=lambda i: deps.library(request).get(i) is not None,
        packages=deps.settings(request).package_names,
    )
    if editing and snippet_id in catalog.bundled:
        report = Report([*report.problems, Problem(None, _("内置片段不能修改。"))], report.snippet, report.verdict)
    if not report.ok:
        return Outcome(report, None)
    catalog.save(report.snippet)
    analyse(request, report.snippet)
    return Outcome(report, report.snippet)


def analyse(request: Request, snippet: Snippet) -> str | None:
    """Starts the version's check-strength analysis in the background (None: execution is off)."""
    sandbox = request.app.state.sandbox
    if sandbox is None:
        return None
    return request.app.state.strength_jobs.start(snippet, sandbox, deps.store(request).engine)


def status_of(request: Request, snippet: Snippet) -> str:
    catalog = deps.catalog(request)
    if snippet.id in catalog.bundled:
        return "bundled"
    return "published" if catalog.is_published(snippet.id) else "draft"


def summary(request: Request, s: Snippet) -> dict:
    """A snippet as JSON clients see it (the API and the teacher pages alike)."""
    return {
        "id": s.id,
        "version": s.version,
        "title": s.title,
        "level": s.level,
        "status": status_of(request, s),
        "exercise": s.is_exercise,
    }


def report_json(report: Report) -> dict:
    verdict = report.verdict
    return {
        "problems": [p.as_json() for p in report.problems],
        "verdict": None
        if verdict is None
        else {
            "status": verdict.status,
            "message": verdict.message,
            "seconds": round(verdict.seconds, 4),
            "place": _verdict_place(report),
        },
    }


def _verdict_place(report: Report) -> dict | None:
    verdict, snippet = report.verdict, report.snippet
    place = (
        file_place(snippet.source, verdict.part, verdict.line, verdict.column)
        if snippet and not verdict.passed
        else None
    )
    return place.as_json() if place else None
