"""The YAML front matter of a snippet file: split off, parsed and validated."""
import re

import yaml

from ..engine.mask import RATE_MAX, RATE_MIN
from .errors import Problem

LEVEL = re.compile(r"^[1-5](-[1-5])?$")
KNOWN = {"title", "summary", "level", "tags", "group", "order", "rates"}


def split_front_matter(text: str) -> tuple[str, str, int] | None:
    """(yaml text, body, number of lines before the body), or None without front matter."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), i + 1
    return None


def load_meta(raw: str, problems: list[Problem]) -> dict:
    try:
        meta = yaml.safe_load(raw)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problems.append(Problem(mark.line + 2 if mark else 1, f"front matter is not valid YAML: {err}"))
        return {}
    if not isinstance(meta, dict):
        problems.append(Problem(1, "front matter must be a mapping of keys to values"))
        return {}
    return meta


def clean_meta(meta: dict, problems: list[Problem]) -> dict:
    """The known keys, typed; a problem for each missing, unknown or ill-typed one."""
    def bad(message: str) -> None:
        problems.append(Problem(1, message))

    for key in sorted(set(meta) - KNOWN, key=str):
        bad(f"unknown front-matter key {key!r} (known: {', '.join(sorted(KNOWN))})")
    out: dict = {}
    for key in ("title", "summary"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            bad(f"front matter needs a non-empty {key!r}")
        else:
            out[key] = value.strip()
    level = str(meta.get("level", "")).strip()
    if not LEVEL.match(level) or int(level[0]) > int(level[-1]):
        bad("'level' must be an integer 1–5 or a range such as \"1-2\"")
    out["level"] = level
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        bad("'tags' must be a list of strings")
    else:
        out["tags"] = tuple(t.strip() for t in tags)
    if meta.get("group") is not None:
        if not isinstance(meta["group"], str):
            bad("'group' must be a string")
        else:
            out["group"] = meta["group"].strip()
    if meta.get("order") is not None:
        if isinstance(meta["order"], bool) or not isinstance(meta["order"], int):
            bad("'order' must be an integer")
        else:
            out["order"] = meta["order"]
    if "rates" in meta:
        rates = meta["rates"]
        if (not isinstance(rates, list) or not rates
                or not all(type(r) is int and RATE_MIN <= r <= RATE_MAX for r in rates)):
            bad(f"'rates' must be a list of integers from {RATE_MIN} to {RATE_MAX}")
        else:
            out["rates"] = tuple(sorted(set(rates)))
    return out
