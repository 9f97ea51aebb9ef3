"""The home page: the course intro and every snippet, by level."""
from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web import deps
from ..memory.summary import due_today
from app.web.templating import render
from .views import markdown_html

router = APIRouter()


@router.get("/")
async def home(request: Request) -> Response:
    library = deps.library(request)
    snippets = library.all()
    data = [{"id": s.id, "title": s.title, "summary": s.summary, "level": s.level, "tags": list(s.tags),
             "group": s.group, "exercise": s.is_exercise, "version": s.version} for s in snippets]
    learner = deps.learner_id(request)
    # a visitor without a (valid) learner cookie has nothing due: no query
    due = [] if getattr(request.state, "new_learner", None) else due_today(deps.store(request), learner, library)
    context = {"snippets": snippets, "intro": markdown_html(library.home_text),
               "course_title": library.home_title, "due": due}
    return render(request, "home.html", context, data=data)  # JSON: the list, as before (`/me` has the due list)
