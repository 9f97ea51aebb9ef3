"""Small helpers the page tests share: answers for a mask, inputs on a page."""
import re

from app.trainer import fixed_drill, random_drill

INPUT = re.compile(r'<input class="blank[^"]*" name="([sc]\d+)"')


def input_names(html: str) -> list[str]:
    return INPUT.findall(html)


def right_answers(app, snippet_id: str, rate: int | None = None, seed: int | None = None) -> dict[str, str]:
    snippet = app.state.library.get(snippet_id)
    drill = random_drill(snippet, rate, seed) if rate else fixed_drill(snippet)
    return {h.key: h.answer for h in drill.holes}


def drill_form(app, snippet_id: str, rate: int, seed: int, **overrides) -> dict[str, str]:
    snippet = app.state.library.get(snippet_id)
    form = {"version": snippet.version, "rate": str(rate), "seed": str(seed),
            **right_answers(app, snippet_id, rate, seed)}
    form.update(overrides)
    return form
