"""The learner's own pages: progress, export, forgetting, profile and the device link."""

import re
from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import NotFound, UserError
from app.web import deps
from app.web.errors import status_of
from app.web.forms import read_fields
from app.web.templating import render, wants_json

from ..classes import roster
from ..i18n import _
from ..learn import forgetting
from ..memory import identity
from ..memory.export import attempts_csv
from ..memory.learner_model import RETENTIONS, learner_model, set_retention
from ..memory.summary import due_list, end_of_today, snippet_progress
from .assignments import learner_work

router = APIRouter()
CLASS_CODE = re.compile(r"^[A-Za-z0-9-]{0,32}$")


@router.get("/me")
async def me(request: Request) -> Response:
    return _me_page(request)


def _me_page(request: Request, status: int = 200, profile: dict | None = None) -> Response:
    """The /me page; `profile` carries a refused profile form (what was typed, the error) back into it."""
    learner, store = deps.learner_id(request), deps.store(request)
    now = datetime.now(UTC)
    with store.engine.connect() as db:
        who = identity.profile(db, learner)
        due = due_list(db, learner, deps.library(request), end_of_today(now), now)
        snippets = snippet_progress(db, learner, deps.library(request), now)
        work = learner_work(db, learner, deps.library(request))
        model = learner_model(db, learner)
    link = (
        str(request.base_url).rstrip("/")
        + "/me/continue/"
        + request.app.state.identity.link_token(learner, who["link_gen"])
    )
    context = {
        "who": who,
        "due": due,
        "progress": snippets,
        "link": link,
        "assignments": work,
        "retention": model.retention,
        "retentions": RETENTIONS,
        "fitted": model.fitted,
        "profile": profile,
    }
    data = {
        "learner": {"name": who["name"], "class_code": who["class_code"]},
        "due": due,
        "link": link,
        "assignments": work,
        "memory": {"retention": model.retention, "fitted": model.fitted},
        "snippets": [{k: v for k, v in s.items() if k not in ("chart", "heatmap")} for s in snippets],
    }
    return render(request, "me.html", context, data=data, status=status)


@router.get("/me/attempts.csv")
async def export(request: Request) -> Response:
    store = deps.store(request)
    with store.engine.connect() as db:
        text = attempts_csv(db, deps.learner_id(request))
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="codecloze-attempts.csv"'},
    )


@router.post("/me/delete")
async def delete_history(request: Request) -> Response:
    fields = await read_fields(request, 4096)
    if fields.get("confirm") != "yes":
        raise UserError(_("请勾选确认后再删除记录。"))
    store = deps.store(request)
    with store.engine.begin() as db:
        forgetting.history(db, deps.learner_id(request))
    return _back(request)


@router.post("/me/profile")
async def save_profile(request: Request) -> Response:
    fields = await read_fields(request, 4096)
    name = " ".join(fields.get("name", "").split())
    code = fields.get("class_code", "").strip()
    try:
        return _saved_profile(request, name, code)
    except UserError as refused:
        if wants_json(request):
            raise
        # Shown on /me next to the form, with what was typed, rather than on a bare error page.
        field = "name" if len(name) > 40 or not name.isprintable() else "class_code"
        typed = {"name": name[:80], "class_code": code[:64], "error": refused.message, "field": field}
        return _me_page(request, status_of(refused), typed)


def _saved_profile(request: Request, name: str, code: str) -> Response:
    if len(name) > 40 or not name.isprintable():
        raise UserError(_("名字最多 40 个字符。"))
    if not CLASS_CODE.match(code):
        raise UserError(_("班级代码只能由字母、数字和 - 组成，最多 32 个字符。"))
    learner = deps.learner_id(request)
    with deps.store(request).engine.begin() as db:
        stored = roster.stored_code(db, code) if code else None  # a code typed in any case
        if code and stored is None:
            raise UserError(_("没有班级代码 “%(code)s”。请向老师确认。", code=code))
        identity.save_profile(db, learner, name=name or None, class_code=stored)
    return deps.remember_learner(_back(request), learner)


@router.post("/me/retention")
async def save_retention(request: Request) -> Response:
    raw = (await read_fields(request, 4096)).get("retention", "").strip()
    retention = next((r for r in RETENTIONS if raw in (str(r), f"{r:.2f}")), None)
    if retention is None:
        raise UserError(
            _(
                "目标记忆率只能是 %(choices)s 之一，收到的是 “%(raw)s”。",
                choices=_("、").join(f"{r:.2f}" for r in RETENTIONS),
                raw=raw[:40],
            ),
        )
    learner = deps.learner_id(request)
    with deps.store(request).engine.begin() as db:
        set_retention(db, learner, retention)
    return deps.remember_learner(_back(request), learner)


@router.post("/me/link")
async def rotate_link(request: Request) -> Response:
    """A new device link; the old one stops working."""
    learner = deps.learner_id(request)
    with deps.store(request).engine.begin() as db:
        identity.save_profile(db, learner, link_gen=identity.link_generation(db, learner) + 1)
    return deps.remember_learner(_back(request), learner)


@router.get("/me/continue/{token}")
async def continue_page(request: Request, token: str) -> Response:
    """Asks before switching: a link alone must not swap a browser's learner (an attacker's link
    would collect the victim's practice into a history the attacker reads)."""
    _link_owner(request, token)
    return render(request, "continue.html", {"token": token}, data={"valid": True})


@router.post("/me/continue/{token}")
async def continue_here(request: Request, token: str) -> Response:
    learner = _link_owner(request, token)
    ident = request.app.state.identity
    response = RedirectResponse("/me", status_code=303)
    return deps.remember_learner(response, identity.Learner(learner, ident.set_cookie_header(learner)))


def _link_owner(request: Request, token: str) -> str:
    with deps.store(request).engine.connect() as db:
        learner = request.app.state.identity.link_owner(token, db)
    if learner is None:
        raise NotFound(_("这个继续学习的链接无效，或已被更换。"))
    return learner


def _back(request: Request) -> Response:
    return RedirectResponse("/me", status_code=303)
