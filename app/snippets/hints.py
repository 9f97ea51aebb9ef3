"""Why a mutant survived, as far as the traced reference run can tell: hints for the teacher.

Each reason is data (`kind` and its details), said in the UI language by the pages:
- `not_run`: the check never runs the mutated line;
- `never_called`: the mutated default belongs to a function the check never calls;
- `default_unused`: every call passed that argument, so its default never mattered;
- `branch`: the condition holding the token went the same way every time;
- `values`: the original and the mutated expression had the same value every time the line ran
  (two sizes equal in the check's data, two flags both False);
- `same_trace`: under shifted seeds the mutant ran the same lines and left the same values as
  the reference (a *likely* equivalent, which a teacher may confirm or not).
"""

from ..i18n import _
from .equivalence import observation
from .mutants import Mutant

SHOWN_CHARS = 60


def reasons(mutant: Mutant, probes: list[dict], reference, likely: bool) -> tuple[dict, ...]:
    """The reasons for one survivor: `probes` are its own (probes.py), `reference` the traced
    reference run that answered them, `likely` whether the shifted-seed runs matched."""
    status, seen = observation(reference)
    out: list[dict] = []
    if status == "passed" and seen is not None:
        answers = {a["id"]: a for a in seen.get("probes", ())}
        ran = set(seen.get("lines", ()))
        default = next((p for p in probes if p["kind"] == "default"), None)
        if mutant.line not in ran:
            out.append({"kind": "not_run", "line": mutant.line})
        elif default is not None:
            out += _default_reason(default, answers.get(default["id"]))
        for probe in probes:
            answer = answers.get(probe["id"])
            if answer and answer["n"] and probe["kind"] == "branch" and answer["same"] in (0, answer["n"]):
                out.append(
                    {"kind": "branch", "line": probe["line"], "test": probe["test"], "always": bool(answer["same"])}
                )
            if answer and answer["n"] and probe["kind"] == "values" and answer["same"] == answer["n"]:
                a, b = probe["exprs"]
                out.append(
                    {"kind": "values", "a": a, "b": b, "value": shown(answer["seen"][0][0]), "times": answer["n"]}
                )
    if likely:
        out.append({"kind": "same_trace"})
    return tuple(out)


def _default_reason(probe: dict, answer: dict | None) -> list[dict]:
    function, _first, _last = probe["call"]
    if not answer or not answer["n"]:
        return [{"kind": "never_called", "function": function}]
    if answer["same"] == 0:
        return [{"kind": "default_unused", "param": probe["param"], "default": repr(probe["default"])}]
    return []


def shown(digest) -> str:
    """A traced value as a teacher reads it: numbers and strings as they are, tensors by shape."""
    if isinstance(digest, list) and len(digest) == 5 and isinstance(digest[0], list) and isinstance(digest[1], str):
        return f"tensor{tuple(digest[0])}"
    text = repr(digest)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def reason_text(reason: dict) -> str:
    """A survivor's hint in the page's language (hints.py lists the kinds)."""
    kind = reason["kind"]
    if kind == "not_run":
        return _("检查从来没有运行第 %(line)s 行", line=reason["line"])
    if kind == "never_called":
        return _("检查从来没有调用 %(name)s", name=reason["function"])
    if kind == "default_unused":
        return _(
            "每次调用都传了 %(param)s，默认值 %(default)s 从没用上", param=reason["param"], default=reason["default"]
        )
    if kind == "branch":
        return _("条件 %(test)s 每次都是 %(value)s：另一个分支从没运行", test=reason["test"], value=reason["always"])
    if kind == "values":
        return _(
            "%(a)s 和 %(b)s 每次都相等（%(value)s，%(n)s 次）：检查的数据让它们取了同一个值",
            a=reason["a"],
            b=reason["b"],
            value=reason["value"],
            n=reason["times"],
        )
    if kind == "same_trace":
        return _("换了几个随机种子运行，经过的行和留下的值都和参考代码一样：可能等价")
    return kind


def failure_text(failure: dict) -> str:
    where = _("（文件第 %(line)s 行）", line=failure["file_line"]) if failure.get("file_line") else ""
    seed = _("原来的随机种子") if failure["seed"] == 0 else _("随机种子加 %(k)s", k=failure["seed"])
    return f"{seed}: {failure['status']} {failure['message']}{where}"
