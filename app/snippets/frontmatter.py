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
        line = mark.line + 2 if mark else 1
        problems.append(Problem(line, _("front matter 不是合法的 YAML：%(err)s", err=yaml_advice(detail, raw, line - 2))))
        return None
    if not isinstance(meta, dict):
        problems.append(Problem(1, _("front matter 必须是“键: 值”的映射")))
        return None
    return meta


def key_lines(raw: str) -> dict[str, int]:
    """The file line of each top-level key of the front matter (it starts on file line 2)."""
    lines = {}
    for number, text in enumerate(raw.split("\n"), start=2):
        key, colon, _rest = text.partition(":")
        if colon and key and not key[0].isspace() and key.strip() not in lines:
            lines[key.strip().strip("'\"")] = number
    return lines


def clean_meta(meta: dict, problems: list[Problem], lines: dict[str, int] | None = None) -> dict:
    """The known keys, typed; a problem for each missing, unknown or ill-typed one, at the key's
    own file line (a missing key at the front matter's first line)."""
    lines = lines or {}

    def bad(message: str, key: str = "") -> None:
        problems.append(Problem(lines.get(key, 1), message))

    for key in sorted(set(meta) - KNOWN, key=str):
        bad(_("未知的 front matter 键 %(key)r（可用：%(known)s）", key=key, known=", ".join(sorted(KNOWN))), str(key))
    out: dict = {}
    for key in ("title", "summary"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            bad(_("front matter 缺少非空的 %(key)r", key=key), key)
        else:
            out[key] = value.strip()
    level = str(meta.get("level", "")).strip()
    if not LEVEL.match(level) or int(level[0]) > int(level[-1]):
        bad(_("'level' 必须是 1–5 的整数，或 \"1-2\" 这样的范围"), "level")
    out["level"] = level
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        bad(_("'tags' 必须是字符串列表"), "tags")
    else:
        out["tags"] = tuple(t.strip() for t in tags)
    if meta.get("group") is not None:
        if not isinstance(meta["group"], str):
            bad(_("'group' 必须是字符串"), "group")
        else:
            out["group"] = meta["group"].strip()
    if meta.get("order") is not None:
        if isinstance(meta["order"], bool) or not isinstance(meta["order"], int):
            bad(_("'order' 必须是整数"), "order")
        else:
            out["order"] = meta["order"]
    if "rates" in meta:
        rates = meta["rates"]
        if (
            not isinstance(rates, list)
            or not rates
            or not all(type(r) is int and RATE_MIN <= r <= RATE_MAX for r in rates)
        ):
            bad(_("'rates' 必须是 %(lo)s 到 %(hi)s 之间的整数列表", lo=RATE_MIN, hi=RATE_MAX), "rates")
        else:
            out["rates"] = tuple(sorted(set(rates)))
    return out


def yaml_advice(problem: str, raw: str, line: int) -> str:
    """PyYAML's problem with what usually fixes it, in the UI language (its own words after)."""
    text = raw.split("\n")[line] if 0 <= line < len(raw.split("\n")) else ""
    for known, advice in _ADVICE:
        if known in problem:
            return f"{advice()} (YAML: {problem})"
    if ": " in text.partition(":")[2]:  # a second `: ` on the line, whatever PyYAML called it
        return f"{_quote_advice()} (YAML: {problem})"
    return problem


def _quote_advice() -> str:
    return _("值里有“: ”（冒号加空格），YAML 把它当成了新的键：请把整个值用引号括起来，例如 summary: \"比较: 两种写法\"")


_ADVICE = (
    ("mapping values are not allowed", _quote_advice),
    ("cannot start any token", lambda: _("值不能以 @、` 或制表符开头：请用引号把值括起来，缩进只用空格")),
    ("found unexpected end of stream", lambda: _("引号没有配对：请检查引号是否都闭合了")),
    ("found unknown escape character", lambda: _("双引号里的反斜杠被当成了转义：请改用单引号，或把 \\ 写成 \\\\")),
    ("could not find expected ':'", lambda: _("这一行不是“键: 值”的形式：键后面要有冒号和一个空格")),
    ("expected <block end>", lambda: _("缩进不一致：同一层的键要左对齐")),
    ("did not find expected key", lambda: _("缩进不一致：同一层的键要左对齐")),
    ("expected ',' or ']'", lambda: _("方括号列表没有正确结束：各项用逗号分隔，最后要有 ]；含逗号或冒号的项请加引号")),
    ("could not determine a constructor", lambda: _("不支持 YAML 标签（!名字）：请把值用引号括起来")),
)
