"""Each learner's memory model: FSRS with their fitted parameters (or the defaults) and the
desired retention they chose on /me. A keyed row read per page or attempt batch."""

from typing import NamedTuple

from fsrs import Rating, Scheduler
from sqlalchemy import bindparam, select, update

from ..db.upserts import upsert
from .calibration import Calibration
from .line_memory import LineEvidence
from .tables import models

DEFAULT_RETENTION = 0.9
RETENTIONS = (0.8, 0.85, 0.9, 0.95)  # what /me offers
MODELS = select(models).where(models.c.learner.in_(bindparam("ids", expanding=True)))  # built once


class LearnerModel(NamedTuple):
    scheduler: Scheduler
    retention: float
    fitted: bool
    reviews: int
    rate: int | None = None  # the mask rate they last drilled at
    calibration: Calibration = Calibration()  # how their blanks went against the model's predictions
    lines: LineEvidence = LineEvidence()  # whether their memory runs by lines (line_memory.py)

    @property
    def scales(self) -> tuple[float, float]:
        """The learner's clock for review masks: (after a recall or a reading, after a miss)."""
        return self.calibration.scale(False), self.calibration.scale(True)


def scheduler_for(parameters: tuple[float, ...] | None, retention: float) -> Scheduler:
    """No fuzzing: a card's due date is a function of its reviews, so tests and pages agree."""
    if parameters is None:
        return Scheduler(desired_retention=retention, enable_fuzzing=False)
    return Scheduler(parameters=parameters, desired_retention=retention, enable_fuzzing=False)


def learner_model(db, learner: str) -> LearnerModel:
    return _model_of(db.execute(select(models).where(models.c.learner == learner)).first())


def learner_models(db, learner_ids) -> dict[str, LearnerModel]:
    """Each learner's model, with one query."""
    ids = sorted(set(learner_ids))
    rows = {r.learner: r for r in db.execute(MODELS, {"ids": ids})} if ids else {}
    return {learner: _model_of(rows.get(learner)) for learner in learner_ids}


def _model_of(row) -> LearnerModel:
    if row is None:
        return LearnerModel(scheduler_for(None, DEFAULT_RETENTION), DEFAULT_RETENTION, False, 0)
    retention = row.retention or DEFAULT_RETENTION
    parameters = tuple(row.parameters) if row.parameters else None
    return LearnerModel(
        scheduler_for(parameters, retention),
        retention,
        parameters is not None,
        row.reviews,
        row.rate,
        Calibration.from_json(row.calibration),
        LineEvidence.from_json((row.calibration or {}).get("lines")),
    )


def self_rated_scheduler(scheduler: Scheduler, rating: Rating) -> Scheduler:
    """The scheduler for a card the learner rates themselves (a short answer): "good" or "easy"
    goes straight to FSRS's interval; only "again" and "hard" take the short learning steps."""
    if rating in (Rating.Again, Rating.Hard):
        return scheduler
    return _without_steps(tuple(scheduler.parameters), scheduler.desired_retention)


def _without_steps(parameters: tuple[float, ...], retention: float) -> Scheduler:
    return Scheduler(
        parameters=parameters,
        desired_retention=retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )


def remember_rates(db, rates: dict[str, int]) -> None:
    """In the attempts' transaction: the mask rate each learner drilled at, for their reviews."""
    rows = [
        {"learner": learner, "rate": rate, "reviews": 0, "fitted_reviews": 0} for learner, rate in sorted(rates.items())
    ]
    if rows:  # an empty parameter list would insert one row of NULLs
        db.execute(upsert(db, models, ("learner",), _set_rate), rows)


def count_reviews(db, reviews: dict[str, int]) -> None:
    """In the attempts' transaction: so many more token reviews by each learner (in key order:
    concurrent writers lock rows in one order)."""
    rows = [{"learner": learner, "reviews": n, "fitted_reviews": 0} for learner, n in sorted(reviews.items()) if n]
    if rows:
        db.execute(upsert(db, models, ("learner",), _add_reviews), rows)


def calibrate(db, models_now: dict, terms: dict[str, list], line_terms: dict[str, list]) -> None:
    """In the attempts' transaction: each learner's calibration and line evidence with this round's
    blanks added (`models_now`: their models as read in this transaction; in key order)."""
    rows = [
        {
            "learner": learner,
            "calibration": _calibration(models_now[learner], terms.get(learner, []), line_terms.get(learner, [])),
            "reviews": 0,
        }
        for learner in sorted(set(terms) | set(line_terms))
        if terms.get(learner) or line_terms.get(learner)
    ]
    if rows:
        db.execute(upsert(db, models, ("learner",), _set_calibration), [{"fitted_reviews": 0, **r} for r in rows])


def _calibration(model: LearnerModel, terms: list, line_terms: list) -> dict:
    """The stored JSON: the calibration's sums, and the line evidence's under "lines"."""
    return {**model.calibration.added(terms).to_json(), "lines": model.lines.added(line_terms).to_json()}


def _set_calibration(table, new) -> dict:
    return {"calibration": new.calibration}


def set_retention(db, learner: str, retention: float) -> None:
    _upsert(db, {"learner": learner, "retention": retention, "reviews": 0}, _set_retention)


def _add_reviews(table, new) -> dict:
    return {"reviews": table.c.reviews + new.reviews}


def _set_rate(table, new) -> dict:
    return {"rate": new.rate}


def _set_retention(table, new) -> dict:
    return {"retention": new.retention}


def _upsert(db, values: dict, changes) -> None:
    db.execute(upsert(db, models, ("learner",), changes), {"fitted_reviews": 0, **values})


def save_parameters(db, learner: str, parameters: list[float], reviews: int, at) -> None:
    db.execute(
        update(models)
        .where(models.c.learner == learner)
        .values(parameters=[float(p) for p in parameters], fitted_reviews=reviews, fitted_at=at)
    )
