"""A learner's own rating of a short answer, stored with the attempt."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, field_validator

from app.errors import NotFound, UserError
from app.learn.drills import whole_number
from app.learn.recording import RATINGS, rate_response
from app.web.deps import LearnerDep, StoreDep
from app.web.forms import SMALL_FORM, form_of
from app.web.templating import render

from ..i18n import _

router = APIRouter()


class RatingForm(BaseModel):
    """Which short answer (its question's number) and how well the learner says they knew it."""

    model_config = ConfigDict(validate_default=True)  # a missing field is worded like a bad one

    rating: str = ""
    question: int = ""  # type: ignore[assignment]

    @field_validator("rating", mode="before")
    @classmethod
    def _rating(cls, raw) -> str:
        if raw not in RATINGS:
            raise UserError(_("评分必须是 again / hard / good / easy 之一。"))
        return raw

    @field_validator("question", mode="before")
    @classmethod
    def _question(cls, raw) -> int:
        question = whole_number(str(raw).strip(), 3)
        if question is None:
            raise UserError(_("缺少题号，或题号不是 0 到 999 之间的整数。"))
        return question


@router.post("/attempts/{attempt_id}/rating")
async def rate(
    request: Request,
    attempt_id: int,
    store: StoreDep,
    learner: LearnerDep,
    form: Annotated[RatingForm, Depends(form_of(RatingForm, SMALL_FORM))],
) -> Response:
    if not rate_response(store.engine, attempt_id, learner, form.question, form.rating):
        raise NotFound(_("找不到这次作答，或它不属于你。"))
    labels = {"again": _("重来"), "hard": _("困难"), "good": _("良好"), "easy": _("简单")}
    return render(
        request,
        "_rated.html",
        {"label": labels[form.rating]},
        data={"attempt": attempt_id, "question": form.question, "rating": form.rating},
    )
