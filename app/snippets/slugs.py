"""A snippet id for an upload that names none: a slug of its title, free on this server."""

import re
from collections.abc import Callable

from . import safe_yaml
from .frontmatter import split_front_matter

_NOT_ID = re.compile(r"[^a-z0-9]+")
FALLBACK = "snippet"  # a title with no ASCII letter or digit (all Chinese, say) has no slug
MAX_LENGTH = 64


def title_of(text: str) -> str:
    """The front matter's title, "" when there is none or the front matter is not valid."""
    split = split_front_matter(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    if split is None:
        return ""
    try:
        meta = safe_yaml.load(split[0])
    except Exception:  # noqa: BLE001 - validation reports it; here it only means no title
        return ""
    return str(meta.get("title") or "") if isinstance(meta, dict) else ""


def slug(title: str) -> str:
    """Lower-case ASCII letters and digits of the title, runs of anything else as one `-`."""
    return _NOT_ID.sub("-", title.lower()).strip("-")[:MAX_LENGTH].rstrip("-") or FALLBACK


def free_id(text: str, taken: Callable[[str], bool]) -> str:
    """The title's slug, or the slug with the first free `-2`, `-3`, … after it."""
    base = slug(title_of(text))
    if not taken(base):
        return base
    stem = base[: MAX_LENGTH - 4].rstrip("-")
    return next(f"{stem}-{n}" for n in range(2, 10_000) if not taken(f"{stem}-{n}"))
