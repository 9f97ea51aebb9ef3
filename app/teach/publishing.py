"""What teachers do to snippets, shared by the teacher pages and the JSON API. Nothing here
knows of HTTP: the web layer hands in the services (`Teaching`) and maps the errors."""

from dataclasses import dataclass

from sqlalchemy import Engine

from app.errors import Forbidden, NotFound
from app.i18n import _
from app.snippets.errors import Problem
from app.snippets.library import SnippetLibrary
from app.snippets.model import Snippet
from app.snippets.places import file_place
from app.snippets.slugs import free_id
from app.snippets.validate import Report, validate
from app.teach.catalog import Catalog
from app.teach.strength_jobs import StrengthJobs


@dataclass(frozen=True)
class Teaching:
    """What publishing uses: the snippets served, the catalog of uploads, the sandbox (None:
    execution off), the background strength runs, the database and the packages offered."""

    library: SnippetLibrary
    catalog: Catalog
    sandbox: object | None
    strength_jobs: StrengthJobs
    engine: Engine
    packages: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    report: Report
    saved: Snippet | None
    id_from_title: bool = False  # the upload named no id: it is a slug of the title


def existing(teaching: Teaching, snippet_id: str) -> Snippet:
    """A snippet teachers may see: any snippet the server has, drafts and bundled ones too."""
    snippet = teaching.library.get(snippet_id)
    if snippet is None:
        raise NotFound(_("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    return snippet


def changeable(teaching: Teaching, snippet_id: str, teacher: int | None = None) -> Snippet:
    """A snippet this teacher may change: an uploaded one (bundled ones are read-only), their own
    unless they are an admin (`teacher` None)."""
    snippet = existing(teaching, snippet_id)
    if snippet_id in teaching.catalog.bundled:
        raise Forbidden(_("“%(id)s” 是随程序发布的内置片段，不能在这里修改；请以新 id 上传一份副本。", id=snippet_id))
    owned(teaching, snippet_id, teacher)
    return snippet


def owned(teaching: Teaching, snippet_id: str, teacher: int | None) -> None:
    """A Forbidden unless the snippet is this teacher's (an admin's, `teacher` None, is any)."""
    if teacher is not None and teaching.catalog.owner(snippet_id) != teacher:
        raise Forbidden(_("“%(id)s” 是另一位教师的片段：只有上传它的教师和管理员能修改。", id=snippet_id))


async def submit(
    teaching: Teaching, data: bytes | str, snippet_id: str, *, editing: bool, owner: int | None = None
) -> Outcome:
    """Validate an upload or edit; save it only when every rule holds (a new snippet is `owner`'s).
    Pasted text with no id takes a free slug of its title."""
    from_title = not editing and not snippet_id and isinstance(data, str)
    if from_title:
        snippet_id = free_id(data, lambda i: teaching.library.get(i) is not None)
    report = await validate(
        data,
        snippet_id,
        sandbox=teaching.sandbox,
        editing=editing,
        taken=lambda i: teaching.library.get(i) is not None,
        packages=teaching.packages,
    )
    if editing and snippet_id in teaching.catalog.bundled:
        report = Report([*report.problems, Problem(None, _("内置片段不能修改。"))], report.snippet, report.verdict)
    if not report.ok:
        return Outcome(report, None, from_title)
    teaching.catalog.save(report.snippet, owner)
    analyse(teaching, report.snippet)
    return Outcome(report, report.snippet, from_title)


def analyse(teaching: Teaching, snippet: Snippet) -> str | None:
    """Starts the version's check-strength analysis in the background (None: execution is off)."""
    if teaching.sandbox is None:
        return None
    return teaching.strength_jobs.start(snippet, teaching.sandbox, teaching.engine)


def delete(teaching: Teaching, snippet_id: str) -> None:
    """Gone for learners and teachers, and its analysis, waiting or under way, stopped."""
    teaching.catalog.delete(snippet_id)
    teaching.strength_jobs.stop_stale()


def status_of(catalog: Catalog, snippet: Snippet) -> str:
    if snippet.id in catalog.bundled:
        return "bundled"
    return "published" if catalog.is_published(snippet.id) else "draft"


def summary(catalog: Catalog, s: Snippet) -> dict:
    """A snippet as JSON clients see it (the API and the teacher pages alike)."""
    return {
        "id": s.id,
        "version": s.version,
        "title": s.title,
        "level": s.level,
        "status": status_of(catalog, s),
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
