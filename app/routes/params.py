"""What drill, exercise and review pages read from the query and their forms, as models.

FastAPI validates the query models and lists their fields in /docs; each field is checked by the
function that words its error for the learner (app/learn/drills.py), so a bad rate reads
"挖空率必须在 10% 到 50% 之间" in the learner's language rather than pydantic's English.
Form models keep the answers as their extra fields (one per blank: `s12`, `c3`; `q0` for a
short answer), which the grading reads as they came.
"""

from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine.mask import RATE_MAX, RATE_MIN, SEED_MAX
from app.engine.tokens import DEFAULT_KINDS
from app.learn.drills import DEFAULT_RATE, DEFAULT_UNIT, parse_kinds, parse_rate, parse_seed, parse_unit

Unit = Literal["token", "span", "line"]
Rate = Annotated[int, Field(ge=RATE_MIN, le=RATE_MAX, description="percent of the eligible tokens hidden")]
Seed = Annotated[int, Field(ge=0, le=SEED_MAX, description="the mask's random seed: the same seed, the same mask")]
KINDS_HELP = "names, literals, operators, punctuation, annotations, docstrings, messages: comma-separated or repeated"


class MaskChoice(BaseModel):
    """How a mask is drawn: its rate, its unit and the kinds of tokens it may hide."""

    rate: Rate = DEFAULT_RATE
    unit: Unit = DEFAULT_UNIT
    kinds: tuple[str, ...] = Field(DEFAULT_KINDS, description=KINDS_HELP)

    @field_validator("rate", mode="before")
    @classmethod
    def _rate(cls, raw) -> int:
        return parse_rate(str(raw))

    @field_validator("unit", mode="before")
    @classmethod
    def _unit(cls, raw) -> str:
        return parse_unit(str(raw))

    @field_validator("kinds", mode="before")
    @classmethod
    def _kinds(cls, raw) -> tuple[str, ...]:
        return parse_kinds(",".join(raw) if isinstance(raw, list | tuple) else str(raw))


def _seed(raw) -> int:
    return parse_seed(str(raw))


class DrillQuery(MaskChoice):
    """A drill page's address: without a seed, the page redirects to one with a new seed."""

    seed: Seed | None = None
    v: str = Field("", description="the snippet's version (a shared URL keeps its mask after an edit)")

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, raw) -> int | None:
        return None if raw in (None, "") else _seed(raw)


# The question a review is for (`q0`, `q1`, …: app/memory/summary.py), marked on the exercise's page.
DueQuestion = Annotated[
    str | None, Query(pattern=r"^q[0-9]{1,3}$", description="the short-answer question due for review")
]


class Answers(BaseModel):
    """A submitted form: the version answered, and the answers as extra fields."""

    model_config = ConfigDict(extra="allow")

    version: str = ""
    reveal: str | None = None  # a blank's reveal button (or "all"): the answers are not submitted
    revealed: str = ""  # blanks whose answer the learner was shown before submitting

    def fields(self) -> dict[str, str]:
        """The answers by field name, as grading reads them."""
        return {**(self.model_extra or {}), "revealed": self.revealed}


class DrillForm(Answers, MaskChoice):
    """A random mask's submission: the mask again (rate, seed, unit, kinds) and its answers."""

    seed: Seed = Field("", validate_default=True)  # a missing seed is worded like a bad one

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, raw) -> int:
        return _seed(raw)


class ReviewMask(BaseModel):
    """The blanks a review chose, as its address carries them (app/memory/review.py encodes them)."""

    at: str = ""
    low: str | None = None
    new: str | None = None


class ReviewQuery(ReviewMask, DrillQuery):
    """A review page's address: without `low`, a fresh review is chosen and redirected to."""


class ReviewForm(ReviewMask, DrillForm):
    """A review mask's submission."""


class RetryQuery(MaskChoice):
    """A retry of the blanks one submission missed: the server signed `miss` (app/learn/retry.py)."""

    v: str = ""
    at: str = ""
    miss: str = ""
    sig: str = ""
