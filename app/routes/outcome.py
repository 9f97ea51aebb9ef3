"""What a scored submission shows on the snippet page: score, verdict, token diffs."""

import html

from markupsafe import Markup

from app.learn.drills import Drill
from app.learn.feedback import Result
from app.learn.verdicts import learner_message
from app.web.templating import Deferred

from ..engine.cjk import lang_attribute
from ..engine.diff import Change, token_diff
from ..i18n import _


def result_context(drill: Drill, result: Result | None) -> dict:
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
        "unproven": result.unproven if result else "",
        "empty": result.empty if result else "",
        "has_diffs": bool(result and _wrong_pieces(drill, result)),
        "diffs": Deferred(lambda: diffs_html(drill, result)) if result else "",
        "run_ms": f"{run.seconds * 1000:.0f}" if run else "",
        "run_where": _("%(part)s 第 %(line)s 行：", part=_part_name(run.part), line=run.line)
        if run and run.line and run.part
        else "",
        "run_message": _content(learner_message(run, drill.snippet.check)) if run else "",
        "run_stdout": _content(run.stdout) if run else "",
    }


def _wrong_pieces(drill: Drill, result: Result) -> list:
    """Wrong answers of span and line blanks and of an exercise's fixed blanks (often several
    tokens): the ones a token diff helps with. A random single token's diff is just its answer."""
    if drill.mode == "random" and drill.unit == "token":
        return []
    labels = {h.key: h.label for h in drill.holes}
    return [(labels[v.key], v) for v, state in zip(result.verdicts, result.states()) if state in ("wrong", "unproven")]


def diffs_html(drill: Drill, result: Result) -> Markup:
    """Each wrong span or line as a token diff: typed-but-not-expected struck out, missing marked."""
    rows = "".join(
        f'<li><span class="diff-label">{html.escape(label)}</span> '
        f'<code class="diff">{_diff(v.given, v.expected)}</code></li>'
        for label, v in _wrong_pieces(drill, result)
    )
    return Markup(f'<ul class="diffs">{rows}</ul>')


def _diff(given: str, expected: str) -> str:
    return "".join(_change(c) for c in token_diff(given, expected))


def _change(change: Change) -> str:
    text = html.escape(change.text)
    if change.op == "same":
        return f"<span>{text}</span> "
    tag = "del" if change.op == "extra" else "ins"
    return f"<{tag}>{text}</{tag}> "


def _content(text: str) -> str | Markup:
    """What the snippet's code said (its messages, its output), marked when it is Chinese; a
    page slot, so the mark is made here rather than in the template."""
    lang = lang_attribute(text)
    return Markup(f"<span{lang}>") + text + Markup("</span>") if lang else text


def _part_name(part: str) -> str:
    return {"code": _("代码"), "setup": _("准备代码"), "check": _("验证代码")}.get(part, part)
