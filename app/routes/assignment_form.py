"""What the assignment form shows: its values (new, stored, or as typed when refused), its limits
(the server's own) and the unit names in the page's language."""

from datetime import UTC, datetime

from app.engine.mask import RATE_MAX, RATE_MIN
from app.errors import UserError

from ..engine.inputs import unit_names
from ..teach.assignments import MAX_REVIEWS

FIELDS = (
    "snippet",
    "mode",
    "rate",
    "unit",
    "target_kind",
    "target_accuracy",
    "target_reviews",
    "starts",
    "due",
)


def new_values() -> dict:
    today = datetime.now(UTC).date().isoformat()
    return {
        "snippet": "",
        "mode": "random",
        "rate": "20",
        "unit": "token",
        "target_kind": "accuracy",
        "target_accuracy": "90",
        "target_reviews": "3",
        "starts": today,
        "due": today,
    }


def stored_values(row: dict) -> dict:
    accuracy = row["target"] == "accuracy"
    percent = round(row["goal"] * 100, 2) if accuracy else 90
    return {
        "snippet": row["snippet_id"],
        "mode": row["mode"],
        "rate": str(row["rate"] or 20),
        "unit": row["unit"] or "token",
        "target_kind": row["target"],
        "target_accuracy": f"{percent:g}",
        "target_reviews": str(int(row["goal"])) if not accuracy else "3",
        "starts": row["starts"],
        "due": row["due"],
    }


def typed_values(fields: dict) -> dict:
    """What was typed, cut to a length the page can show again."""
    return {**new_values(), **{k: str(fields.get(k, ""))[:64] for k in FIELDS if k in fields}}


def context(values: dict, refused: UserError | None = None) -> dict:
    """The form's context: values, the error and its field, the limits, the unit names."""
    field = refused.field if refused else ""
    return {
        "values": values,
        "error": refused.message if refused else "",
        "field": "target_" + values["target_kind"] if field == "target" else field,
        "rate_min": RATE_MIN,
        "rate_max": RATE_MAX,
        "max_reviews": MAX_REVIEWS,
        "units": unit_names(),
    }
