"""What the snippet page template and JSON clients are given."""

from functools import lru_cache

from markupsafe import Markup

from app.learn.drills import Drill, mask_query
from app.learn.feedback import Result
from app.web.markdown import render_markdown

from ..engine.inert import INERT_KINDS
from ..engine.inputs import unit_names
from ..engine.render import blanks_shown, code_html
from ..engine.tokens import DEFAULT_KINDS, KINDS, candidate_spans
from ..i18n import _
from .outcome import result_context


@lru_cache(maxsize=512)
def markdown_html(text: str) -> Markup:
    return render_markdown(text)


def static_code(code: str) -> Markup:
    return code_html(code)


def page_context(drill: Drill, *, shown, result: Result | None, revealed: bool, fresh_url: str, drill_url) -> dict:
    snippet = drill.snippet
    random = drill.mode == "random"
    return {
        "snippet": snippet,
        "drill": drill,
        # called by the template: an htmx outcome does not print the code
        "trainer_code": lambda: blanks_shown(
            snippet.code, drill.holes, (result.hole_states() if shown is None and result else shown) or {}
        ),
        "revealed": revealed,
        "markdown": markdown_html,
        "static_code": static_code,
        "not_saved_message": not_saved_message,
        "hint_groups": _hint_groups(drill),
        "seed": drill.seed if random else "",
        "drill_url": drill_url,
        "fresh_url": fresh_url if random else "",
        "again_url": drill_url(snippet.id, drill.rate, drill.seed, snippet.version, drill.unit, drill.kinds)
        if random
        else "",
        "counts": counts_text(drill),
        "kind_toggles": kind_toggles(drill),
        "unit_names": unit_names(),
        "mask_query": mask_query(drill.unit, drill.kinds),
        "default_kinds": DEFAULT_KINDS,
        **result_context(drill, result),
    }


def kind_names() -> dict[str, str]:
    return {
        "names": _("名称"),
        "literals": _("字面量"),
        "operators": _("运算符"),
        "punctuation": _("标点"),
        "annotations": _("类型注解"),
        "docstrings": _("文档字符串"),
        "messages": _("消息文本"),
    }


def kind_toggles(drill: Drill) -> list[tuple[str, str, bool, tuple[str, ...] | None]]:
    """Each kind, whether it is chosen, and the kinds after toggling it (None: the last one left)."""
    out, present = [], {s.kind for s in candidate_spans(drill.snippet.code)}
    for kind, name in kind_names().items():
        if kind in INERT_KINDS and kind not in present:
            continue  # offered only where the code has such places
        on = kind in drill.kinds
        toggled = tuple(k for k in KINDS if (k == kind) != (k in drill.kinds))
        out.append((kind, name, on, toggled or None))
    return out


def counts_text(drill: Drill) -> str:
    """The counts line (the seed's `共 N 个可挖空位 | 已挖 M 个`), per unit."""
    if drill.mode != "random" or drill.unit == "token":
        return _("共 %(n)s 个可挖空位 | 已挖 %(m)s 个", n=drill.eligible, m=len(drill.holes))
    if drill.unit == "span":
        return _(
            "共 %(n)s 个可挖空位 | 已挖 %(m)s 个，分成 %(k)s 段", n=drill.eligible, m=drill.hidden, k=len(drill.holes)
        )
    return _(
        "共 %(n)s 个可挖空位，%(lines)s 行 | 已挖 %(k)s 行（%(m)s 个）",
        n=drill.eligible,
        lines=drill.lines,
        k=len(drill.holes),
        m=drill.hidden,
    )


def _hint_groups(drill: Drill) -> list[tuple[str, list[str]]]:
    """Per-group hints of the fixed blanks (from `{{cN::answer::hint}}`), in group order."""
    if drill.mode != "fixed":
        return []
    groups: dict[str, list[str]] = {}
    for hole in drill.holes:
        groups.setdefault(hole.label, [])
        if hole.hint and hole.hint not in groups[hole.label]:
            groups[hole.label].append(hole.hint)
    return [(label, hints) for label, hints in groups.items() if hints]


def drill_json(drill: Drill, result: Result | None) -> dict:
    snippet = drill.snippet
    data = {
        "snippet": snippet.id,
        "version": snippet.version,
        "mode": drill.mode,
        "rate": drill.rate,
        "seed": drill.seed,
        "unit": drill.unit,
        "kinds": list(drill.kinds),
        "eligible": drill.eligible,
        "hidden": drill.hidden if drill.mode == "random" else None,
        "blanks": [
            {
                "key": h.key,
                "label": h.label,
                "start": h.start,
                "end": h.end,
                "width": len(h.answer),
                **({"span": list(h.span)} if h.span else {}),
            }
            for h in drill.holes
        ],
    }
    if result is not None:
        data["result"] = result.as_json()
        if not result.saved:
            data["error"] = not_saved_message()
    return data


def not_saved_message() -> str:
    return _("你的答案已评分（结果见下），但没能保存：数据库暂时无法写入。请稍后再提交一次，以便记入你的进度。")
