"""The home page: the course intro and every snippet, by level."""

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.deps import LearnerDep, LibraryDep, NewLearner, StoreDep
from app.web.templating import render
from app.web.zone import learner_zone

from ..memory.summary import due_today
from .assignments import learner_work
from .views import markdown_html

router = APIRouter()


@router.get("/")
async def home(
    request: Request, library: LibraryDep, store: StoreDep, learner: LearnerDep, new_learner: NewLearner
) -> Response:
    snippets = library.all()
    sections, rest = course_sections(library.home_sections, snippets)
    where = {s.id: title for title, members, _intro in sections for s in members}
    ordered = [s for _title, members, _intro in sections for s in members] + rest
    data = [
        {
            "id": s.id,
            "title": s.title,
            "summary": s.summary,
            "level": s.level,
            "tags": list(s.tags),
            "group": s.group,
            "exercise": s.is_exercise,
            "version": s.version,
            "section": where.get(s.id),
        }
        for s in ordered
    ]
    # a visitor without a (valid) learner cookie has nothing due: no query
    due = due_today(store, learner, library, learner_zone(request)) if not new_learner else []
    work = _work(store, learner, library) if not new_learner else []
    context = {
        "snippets": rest,
        "sections": sections,
        "intro": markdown_html(library.home_text),
        "course_title": library.home_title,
        "due": due,
        "assignments": work,
    }
    return render(request, "home.html", context, data=data)  # JSON: the list, as before (`/me` has the due list)


def _work(store, learner, library) -> list[dict]:
    with store.engine.connect() as db:
        return learner_work(db, learner, library)


def course_sections(sections, snippets: list) -> tuple[list[tuple[str, list, str]], list]:
    """The course's sections (title, published members, intro as HTML) in the teacher's order, then
    the rest by level."""
    by_id = {s.id: s for s in snippets}
    placed: set[str] = set()
    out = []
    for section in sections:
        members = [by_id[i] for i in section.snippets if i in by_id and i not in placed]
        placed.update(s.id for s in members)
        if members:
            out.append((section.title, members, markdown_html(section.intro) if section.intro else ""))
    return out, [s for s in snippets if s.id not in placed]
