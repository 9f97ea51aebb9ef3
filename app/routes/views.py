"""What the snippet page template and JSON clients are given."""
from functools import lru_cache

from markupsafe import Markup, escape

from ..engine.render import render_code
from ..feedback import Result
from ..markdown import render_markdown
from ..trainer import Drill


@lru_cache(maxsize=512)
def markdown_html(text: str) -> Markup:
    return render_markdown(text)


@lru_cache(maxsize=256)
def static_code(code: str) -> Markup:
    return render_code(code, [])


def page_context(drill: Drill, *, shown, result: Result | None, revealed: bool, next_seed: int,
                 drill_url) -> dict:
    snippet = drill.snippet
    return {
        "snippet": snippet,
        "drill": drill,
        "code_html": render_code(snippet.code, list(drill.holes), shown),
        "result": result,
        "revealed": revealed,
        "next_seed": next_seed,
        "drill_url": drill_url,
        "markdown": markdown_html,
        "static_code": static_code,
        "hint_groups": _hint_groups(drill),
        "rate_links": rate_links(drill, drill_url) if drill.mode == "random" else "",
    }


def rate_links(drill: Drill, drill_url) -> Markup:
    """The rate picker: a link per rate, same seed (built here: it is on every drill page)."""
    snippet = drill.snippet
    links = []
    for rate in snippet.rates:
        url = escape(drill_url(snippet.id, rate, drill.seed, snippet.version))
        current = ' aria-current="true"' if rate == drill.rate else ""
        links.append(f'<a href="{url}" hx-get="{url}" hx-target="#trainer" hx-swap="outerHTML" hx-push-url="true"'
                     f' class="rate"{current}>{rate}%</a>')
    return Markup("".join(links))


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
    return data
