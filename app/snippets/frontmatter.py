"""The YAML front matter of a snippet file: split off, parsed and validated."""

import re

import yaml

from ..engine.mask import RATE_MAX, RATE_MIN
from ..i18n import _
from . import safe_yaml
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
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 1
    return None


def load_meta(raw: str, problems: list[Problem]) -> dict | None:
    """The front matter as a dict; None (with its problem) when it is not valid YAML."""
    try:
        meta = safe_yaml.load(raw)
    except safe_yaml.TooLarge:
        problems.append(Problem(1, _("front matter 太长（上限 %(n)s 个字符）", n=safe_yaml.MAX_CHARS)))
        return None
    except safe_yaml.AliasRefused as err:
        problems.append(Problem(err.problem_mark.line + 2, _("front matter 里不能用 YAML 别名（*名字）")))
        return None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        detail = getattr(err, "problem", None) or str(err)
        problems.append(Problem(mark.line + 2 if mark else 1, _("front matter 不是合法的 YAML：%(err)s", err=detail)))
        return None
    if not isinstance(meta, dict):
        problems.append(Problem(1, _("front matter 必须是“键: 值”的映射")))
        return None
    return meta


def clean_meta(meta: dict, problems: list[Problem]) -> dict:
    """The known keys, typed; a problem for each missing, unknown or ill-typed one."""

    def bad(message: str) -> None:
        problems.append(Problem(1, message))

    for key in sorted(set(meta) - KNOWN, key=str):
        bad(_("未知的 front matter 键 %(key)r（可用：%(known)s）", key=key, known=", ".join(sorted(KNOWN))))
    out: dict = {}
    for key in ("title", "summary"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            bad(_("front matter 缺少非空的 %(key)r", key=key))
        else:
            out[key] = value.strip()
    level = str(meta.get("level", "")).strip()
    if not LEVEL.match(level) or int(level[0]) > int(level[-1]):
        bad(_("'level' 必须是 1–5 的整数，或 \"1-2\" 这样的范围"))
    out["level"] = level
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        bad(_("'tags' 必须是字符串列表"))
    else:
        out["tags"] = tuple(t.strip() for t in tags)
    if meta.get("group") is not None:
        if not isinstance(meta["group"], str):
            bad(_("'group' 必须是字符串"))
        else:
            out["group"] = meta["group"].strip()
    if meta.get("order") is not None:
        if isinstance(meta["order"], bool) or not isinstance(meta["order"], int):
            bad(_("'order' 必须是整数"))
        else:
            out["order"] = meta["order"]
    if "rates" in meta:
        rates = meta["rates"]
        if (
            not isinstance(rates, list)
            or not rates
            or not all(type(r) is int and RATE_MIN <= r <= RATE_MAX for r in rates)
        ):
            bad(_("'rates' 必须是 %(lo)s 到 %(hi)s 之间的整数列表", lo=RATE_MIN, hi=RATE_MAX))
        else:
            out["rates"] = tuple(sorted(set(rates)))
    return out
