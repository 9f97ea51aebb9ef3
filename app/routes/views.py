"""What the snippet page template and JSON clients are given."""
from functools import lru_cache

from markupsafe import Markup

from ..engine.render import render_code
from ..feedback import Result
from ..i18n import _
from ..markdown import render_markdown
from ..templating import Deferred
from ..trainer import Drill


@lru_cache(maxsize=512)
def markdown_html(text: str) -> Markup:
    return render_markdown(text)


@lru_cache(maxsize=256)
def static_code(code: str) -> Markup:
    return render_code(code, [])


# What the snippet page prints per request: slots of its cached frame (see templating.Frame).
# Everything else it shows is fixed by its frame key (see routes.trainer.snippet_page).
PAGE_SLOTS = ("code_html", "seed", "fresh_url", "again_url", "marks", "error_line",
              "correct", "total", "accepted", "run_ms", "run_where", "run_message", "run_stdout")


def page_context(drill: Drill, *, shown, result: Result | None, revealed: bool, fresh_url: str,
                 drill_url) -> dict:
    snippet = drill.snippet
    random = drill.mode == "random"
    return {
        "snippet": snippet,
        "drill": drill,
        # deferred: an htmx outcome does not print them
        "code_html": Deferred(lambda: render_code(snippet.code, list(drill.holes),
                                                  result.hole_states() if shown is None and result else shown)),
        "revealed": revealed,
        "markdown": markdown_html,
        "static_code": static_code,
        "not_saved_message": not_saved_message,
        "hint_groups": _hint_groups(drill),
        "seed": drill.seed if random else "",
        "drill_url": drill_url,
        "fresh_url": fresh_url if random else "",
        "again_url": drill_url(snippet.id, drill.rate, drill.seed, snippet.version) if random else "",
        **result_context(result),
    }


def result_context(result: Result | None) -> dict:
    """A scored submission as the page prints it: the marks for the inputs, the score, the verdict."""
    run = result and result.run
    return {
        "result": result,
        "run": run,
        "marks": result.marks_json() if result else "",
        "error_line": run.line if run and run.part == "code" and run.line else "",
        "correct": result.correct if result else "",
        "total": result.total if result else "",
        "accepted": result.accepted if result else "",
        "run_ms": f"{run.seconds * 1000:.0f}" if run else "",
        "run_where": _("%(part)s 第 %(line)s 行：", part=_part_name(run.part), line=run.line)
                     if run and run.line and run.part else "",
        "run_message": run.message if run else "",
        "run_stdout": run.stdout if run else "",
    }


def result_shape(result: Result | None) -> tuple | None:
    """What decides which parts of the result the page shows (the frame key's share)."""
    run = result and result.run
    if result is None:
        return None
    return (result.accepted > 0, run and run.status, bool(run and run.message), bool(run and run.stdout),
            result.saved)


def _part_name(part: str) -> str:
    return {"code": _("代码"), "setup": _("准备代码"), "check": _("验证代码")}.get(part, part)


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
        "snippet": snippet.id, "version": snippet.version, "mode": drill.mode,
        "rate": drill.rate, "seed": drill.seed, "eligible": drill.eligible,
        "blanks": [{"key": h.key, "label": h.label, "start": h.start, "end": h.end,
                    "width": len(h.answer)} for h in drill.holes],
    }
    if result is not None:
        data["result"] = result.as_json()
        if not result.saved:
            data["error"] = not_saved_message()
    return data


def not_saved_message() -> str:
    return _("你的答案已评分（结果见下），但没能保存：数据库暂时无法写入。请稍后再提交一次，以便记入你的进度。")
