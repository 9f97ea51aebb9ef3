"""What the snippet page template and JSON clients are given."""
from functools import lru_cache

from markupsafe import Markup, escape

from ..engine.diff import Change, token_diff
from ..engine.render import render_code
from ..engine.tokens import DEFAULT_KINDS, KINDS
from ..feedback import Result
from ..i18n import _
from ..markdown import render_markdown
from ..templating import Deferred
from ..trainer import Drill, mask_query
from ..verdicts import learner_message


@lru_cache(maxsize=512)
def markdown_html(text: str) -> Markup:
    return render_markdown(text)


@lru_cache(maxsize=256)
def static_code(code: str) -> Markup:
    return render_code(code, [])


# What the snippet page prints per request: slots of its cached frame (see templating.Frame).
# Everything else it shows is fixed by its frame key (see routes.trainer.snippet_page).
PAGE_SLOTS = ("code_html", "seed", "counts", "fresh_url", "again_url", "marks", "error_line",
              "correct", "total", "accepted", "empty", "diffs", "run_ms", "run_where", "run_message", "run_stdout")


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
        "hint_groups": _hint_groups(drill),
        "seed": drill.seed if random else "",
        "drill_url": drill_url,
        "fresh_url": fresh_url if random else "",
        "again_url": drill_url(snippet.id, drill.rate, drill.seed, snippet.version, drill.unit, drill.kinds)
                     if random else "",
        "counts": counts_text(drill),
        "kind_toggles": kind_toggles(drill),
        "unit_names": UNIT_NAMES,
        "mask_query": mask_query(drill.unit, drill.kinds),
        "default_kinds": DEFAULT_KINDS,
        **result_context(drill, result),
    }


UNIT_NAMES = {"token": _("单个词元"), "span": _("子表达式"), "line": _("整行")}
KIND_NAMES = {"names": _("名称"), "literals": _("字面量"), "operators": _("运算符"), "punctuation": _("标点")}


def kind_toggles(drill: Drill) -> list[tuple[str, str, bool, tuple[str, ...] | None]]:
    """Each kind, whether it is chosen, and the kinds after toggling it (None: the last one left)."""
    out = []
    for kind, name in KIND_NAMES.items():
        on = kind in drill.kinds
        toggled = tuple(k for k in KINDS if (k == kind) != (k in drill.kinds))
        out.append((kind, name, on, toggled or None))
    return out


def counts_text(drill: Drill) -> str:
    """The counts line (the seed's `共 N 个可挖空位 | 已挖 M 个`), per unit."""
    if drill.mode != "random" or drill.unit == "token":
        return _("共 %(n)s 个可挖空位 | 已挖 %(m)s 个", n=drill.eligible, m=len(drill.holes))
    if drill.unit == "span":
        return _("共 %(n)s 个可挖空位 | 已挖 %(m)s 个，分成 %(k)s 段", n=drill.eligible, m=drill.hidden,
                 k=len(drill.holes))
    return _("共 %(n)s 个可挖空位，%(lines)s 行 | 已挖 %(k)s 行（%(m)s 个）", n=drill.eligible, lines=drill.lines,
             k=len(drill.holes), m=drill.hidden)


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
        "empty": result.empty if result else "",
        "has_diffs": bool(result and _wrong_pieces(drill, result)),
        "diffs": Deferred(lambda: diffs_html(drill, result)) if result else "",
        "run_ms": f"{run.seconds * 1000:.0f}" if run else "",
        "run_where": _("%(part)s 第 %(line)s 行：", part=_part_name(run.part), line=run.line)
                     if run and run.line and run.part else "",
        "run_message": learner_message(run, drill.snippet.check) if run else "",
        "run_stdout": run.stdout if run else "",
    }


def result_shape(drill: Drill, result: Result | None) -> tuple | None:
    """What decides which parts of the result the page shows (the frame key's share)."""
    run = result and result.run
    if result is None:
        return None
    return (result.accepted > 0, result.empty > 0, bool(_wrong_pieces(drill, result)), run and run.status,
            bool(run and run.message), bool(run and run.stdout))


def _wrong_pieces(drill: Drill, result: Result) -> list:
    """Wrong answers of span and line blanks: the ones a token diff helps with."""
    if drill.unit == "token" or drill.mode != "random":
        return []
    labels = {h.key: h.label for h in drill.holes}
    return [(labels[v.key], v) for v, state in zip(result.verdicts, result.states()) if state == "wrong"]


def diffs_html(drill: Drill, result: Result) -> Markup:
    """Each wrong span or line as a token diff: typed-but-not-expected struck out, missing marked."""
    rows = []
    for label, verdict in _wrong_pieces(drill, result):
        changes = "".join(_change(c) for c in token_diff(verdict.given, verdict.expected))
        rows.append(f'<li><span class="diff-label">{escape(label)}</span> <code class="diff">{changes}</code></li>')
    return Markup(f'<ul class="diffs">{"".join(rows)}</ul>')


def _change(change: Change) -> str:
    text = escape(change.text)
    if change.op == "same":
        return f"<span>{text}</span> "
    tag = "del" if change.op == "extra" else "ins"
    return f"<{tag}>{text}</{tag}> "


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
        "rate": drill.rate, "seed": drill.seed, "unit": drill.unit, "kinds": list(drill.kinds),
        "eligible": drill.eligible, "hidden": drill.hidden if drill.mode == "random" else None,
        "blanks": [{"key": h.key, "label": h.label, "start": h.start, "end": h.end, "width": len(h.answer),
                    **({"span": list(h.span)} if h.span else {})} for h in drill.holes],
    }
    if result is not None:
        data["result"] = result.as_json()
    return data
