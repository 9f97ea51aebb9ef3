"""The learner's own pages: progress, export, forgetting, profile and the device link."""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, field_validator

from app.errors import Conflict, NotFound, UserError
from app.memory.identity import Learner
from app.web.deps import IdentityDep, LearnerDep, LibraryDep, StoreDep, built, remember_learner
from app.web.errors import status_of
from app.web.forms import SMALL_FORM, form_of
from app.web.templating import render, wants_json
from app.web.zone import learner_zone

from ..classes import roster
from ..i18n import _
from ..learn import forgetting
from ..learn.rejudging import RECENT_DAYS, recent
from ..memory import identity
from ..memory.export import attempts_csv
from ..memory.learner_model import RETENTIONS, learner_model, set_retention
from ..memory.summary import due_list, end_of_today, snippet_progress
from .assignments import learner_work

router = APIRouter()
CLASS_CODE = re.compile(r"^[A-Za-z0-9-]{0,32}$")


class ConfirmForm(BaseModel):
    model_config = ConfigDict(validate_default=True)

    confirm: str = ""

    @field_validator("confirm")
    @classmethod
    def _checked(cls, confirm: str) -> str:
        if confirm != "yes":
            raise UserError(_("请勾选确认后再删除记录。"))
        return confirm


class ProfileForm(BaseModel):
    """A display name (runs of spaces made one) and a class code, checked by the route: a refused
    profile is shown again on /me with what was typed."""

    name: str = ""
    class_code: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        return " ".join(name.split())

    @field_validator("class_code")
    @classmethod
    def _code(cls, code: str) -> str:
        return code.strip()


class RetentionForm(BaseModel):
    model_config = ConfigDict(validate_default=True)

    retention: float = ""  # type: ignore[assignment]

    @field_validator("retention", mode="before")
    @classmethod
    def _offered(cls, raw) -> float:
        raw = str(raw).strip()
        retention = next((r for r in RETENTIONS if raw in (str(r), f"{r:.2f}")), None)
        if retention is None:
            raise UserError(
                _(
                    "目标记忆率只能是 %(choices)s 之一，收到的是 “%(raw)s”。",
                    choices=_("、").join(f"{r:.2f}" for r in RETENTIONS),
                    raw=raw[:40],
                ),
            )
        return retention


@dataclass
class Learning:
    """The learner and where their history is kept."""

    learner: LearnerDep
    store: StoreDep
    library: LibraryDep
    identities: IdentityDep


LearningDep = Annotated[Learning, Depends(built(Learning))]


@router.get("/me")
async def me(
    request: Request,
    learning: LearningDep,
    joined: Annotated[str, Query(description="the class a join just sent the browser here from")] = "",
) -> Response:
    return _me_page(request, learning, joined=joined)


def _me_page(
    request: Request, learning: Learning, status: int = 200, profile: dict | None = None, joined: str = ""
) -> Response:
    """The /me page; `profile` carries a refused profile form (what was typed, the error) back into
    it; `joined` confirms a join, if the learner is in that class."""
    learner, library, now = learning.learner, learning.library, datetime.now(UTC)
    zone = learner_zone(request)
    with learning.store.engine.connect() as db:
        who = identity.profile(db, learner)
        cls = roster.one(db, who["class_code"]) if who["class_code"] else None
        due = due_list(db, learner, library, end_of_today(now, zone), now)
        snippets = snippet_progress(db, learner, library, now, zone)
        work = learner_work(db, learner, library)
        model = learner_model(db, learner)
        rejudged = recent(db, learner, now - timedelta(days=RECENT_DAYS))
    link = (
        str(request.base_url).rstrip("/") + "/me/continue/" + learning.identities.link_token(learner, who["link_gen"])
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
        "rejudged": rejudged,
        "cls": cls,
        "joined": bool(cls) and joined == cls["code"],
    }
    data = {
        "learner": {"name": who["name"], "class_code": who["class_code"], "class_name": cls and cls["name"]},
        "due": due,
        "link": link,
        "assignments": work,
        "memory": {"retention": model.retention, "fitted": model.fitted},
        "snippets": [{k: v for k, v in s.items() if k not in ("chart", "heatmap")} for s in snippets],
        "rejudged": [
            {**r, "answered_at": r["answered_at"].isoformat(), "credited_at": r["credited_at"].isoformat()}
            for r in rejudged
        ],
    }
    return render(request, "me.html", context, data=data, status=status)


@router.get("/me/attempts.csv")
async def export(store: StoreDep, learner: LearnerDep) -> Response:
    with store.engine.connect() as db:
        text = attempts_csv(db, learner)
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="codecloze-attempts.csv"'},
    )


@router.post("/me/delete")
async def delete_history(
    store: StoreDep, learner: LearnerDep, _form: Annotated[ConfirmForm, Depends(form_of(ConfirmForm, SMALL_FORM))]
) -> Response:
    with store.engine.begin() as db:
        forgetting.history(db, learner)
    return _back()


@router.post("/me/profile")
async def save_profile(
    request: Request, learning: LearningDep, form: Annotated[ProfileForm, Depends(form_of(ProfileForm, SMALL_FORM))]
) -> Response:
    try:
        return _saved_profile(learning, form.name, form.class_code)
    except UserError as refused:
        if wants_json(request):
            raise
        # Shown on /me next to the form, with what was typed, rather than on a bare error page.
        name, code = form.name, form.class_code
        field = "name" if len(name) > 40 or not name.isprintable() else "class_code"
        typed = {"name": name[:80], "class_code": code[:64], "error": refused.message, "field": field}
        return _me_page(request, learning, status_of(refused), typed)


def _saved_profile(learning: Learning, name: str, code: str) -> Response:
    if len(name) > 40 or not name.isprintable():
        raise UserError(_("名字最多 40 个字符。"))
    if not CLASS_CODE.match(code):
        raise UserError(_("班级代码只能由字母、数字和 - 组成，最多 32 个字符。"))
    with learning.store.engine.begin() as db:
        stored = roster.stored_code(db, code) if code else None  # a code typed in any case
        if code and stored is None:
            raise UserError(_("没有班级代码 “%(code)s”。请向老师确认。", code=code))
        if stored and stored != identity.profile(db, learning.learner)["class_code"] and roster.archived(db, stored):
            raise Conflict(_("班级 “%(code)s” 已归档，不能再加入。", code=stored))
        identity.save_profile(db, learning.learner, name=name or None)
        joined = identity.set_class(db, learning.learner, stored)
    return remember_learner(_back(stored if joined else None), learning.learner)


@router.post("/me/retention")
async def save_retention(
    store: StoreDep, learner: LearnerDep, form: Annotated[RetentionForm, Depends(form_of(RetentionForm, SMALL_FORM))]
) -> Response:
    with store.engine.begin() as db:
        set_retention(db, learner, form.retention)
    return remember_learner(_back(), learner)


@router.post("/me/link")
async def rotate_link(store: StoreDep, learner: LearnerDep) -> Response:
    """A new device link; the old one stops working."""
    with store.engine.begin() as db:
        identity.save_profile(db, learner, link_gen=identity.link_generation(db, learner) + 1)
    return remember_learner(_back(), learner)


@router.get("/me/continue/{token}")
async def continue_page(request: Request, token: str, store: StoreDep, identities: IdentityDep) -> Response:
    """Asks before switching: a link alone must not swap a browser's learner (an attacker's link
    would collect the victim's practice into a history the attacker reads)."""
    _link_owner(store, identities, token)
    return render(request, "continue.html", {"token": token}, data={"valid": True})


@router.post("/me/continue/{token}")
async def continue_here(token: str, store: StoreDep, identities: IdentityDep) -> Response:
    learner = _link_owner(store, identities, token)
    response = RedirectResponse("/me", status_code=303)
    return remember_learner(response, Learner(learner, identities.set_cookie_header(learner)))


def _link_owner(store, identities, token: str) -> str:
    with store.engine.connect() as db:
        learner = identities.link_owner(token, db)
    if learner is None:
        raise NotFound(_("这个继续学习的链接无效，或已被更换。"))
    return learner


def _back(joined: str | None = None) -> Response:
    """Back to /me; after joining a class, to the page that confirms it."""
    return RedirectResponse(joined_url(joined) if joined else "/me", status_code=303)


def joined_url(code: str) -> str:
    return "/me?" + urlencode({"joined": code})
