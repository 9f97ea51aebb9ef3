"""A learner's own rating of a short answer, stored with the attempt."""

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.errors import NotFound, UserError
from app.learn.drills import whole_number
from app.learn.recording import RATINGS, rate_response
from app.web import deps
from app.web.forms import read_fields
from app.web.templating import render

from ..i18n import _

router = APIRouter()


@router.post("/attempts/{attempt_id}/rating")
async def rate(request: Request, attempt_id: int) -> Response:
    fields = await read_fields(request, 4096)
    rating = fields.get("rating", "")
    if rating not in RATINGS:
        raise UserError(_("评分必须是 again / hard / good / easy 之一。"))
    question = whole_number(fields.get("question", "").strip(), 3)
    if question is None:
        raise UserError(_("缺少题号，或题号不是 0 到 999 之间的整数。"))
    if not rate_response(deps.store(request).engine, attempt_id, deps.learner_id(request), question, rating):
        raise NotFound(_("找不到这次作答，或它不属于你。"))
    labels = {"again": _("重来"), "hard": _("困难"), "good": _("良好"), "easy": _("简单")}
    return render(
        request,
        "_rated.html",
        {"label": labels[rating]},
        data={"attempt": attempt_id, "question": question, "rating": rating},
    )
