"""A page filled into its cached frame is byte for byte the page Jinja renders for that request."""
import re

import pytest
from jinja2 import ChoiceLoader, DictLoader
from markupsafe import Markup
from starlette.requests import Request

from app import i18n
from app.engine.score import score
from app.engine.tokens import DEFAULT_KINDS, KINDS
from app.feedback import Result, revealed_states
from app.routes.trainer import snippet_page
from app.sandbox.types import Verdict
from app.templating import Frame, render
from app.trainer import fixed_drill, random_drill

RUNS = (None, Verdict("passed", "", seconds=0.02),
        Verdict("error", "NameError: name 'm_ij' is not defined", part="code", line=7, stdout="<&>", seconds=0.03),
        Verdict("failed", "AssertionError: 输出不一致", part="check", line=3, seconds=0.04))


def request_for(app, htmx: bool) -> Request:
    headers = [(b"hx-request", b"true")] if htmx else []
    return Request({"type": "http", "app": app, "method": "GET", "path": "/", "query_string": b"",
                    "headers": headers})


def both_ways(app, drill, htmx: bool, block: str = "trainer", **kwargs) -> tuple[bytes, bytes | None]:
    """The response body through the frame, and rendered directly from the same context."""
    request = request_for(app, htmx)
    context, frame = snippet_page(request, drill, **kwargs)
    direct = render(request, "snippet.html", context, block=block).body
    if frame is None:
        return direct, None
    return direct, render(request, "snippet.html", context, block=block, frame=frame).body


def scored(drill, seed: int, run, empty: bool = True) -> Result:
    # Some blanks right, some wrong with text that needs escaping, some empty (or not).
    answers = {h.key: [h.answer, "<b>&\"'", "" if empty else "x", f" {h.answer} "][(i + seed) % 4]
               for i, h in enumerate(drill.holes)}
    # With a passing run, the wrong texts are marked accepted where credited, unproven elsewhere.
    credited = frozenset(h.key for i, h in enumerate(drill.holes) if i % 3)
    return Result(tuple(score(list(drill.holes), answers)), run, attempt_id=seed + 1, credited=credited)


@pytest.mark.parametrize("htmx", [False, True])
def test_new_masks_fill_one_frame_per_rate(client, htmx):
    app = client.app
    for snippet_id in ("mlm-online-softmax", "mlm-flash-forward", "ex3-blocked-matmul"):
        snippet = app.state.library.get(snippet_id)
        for rate in (10, 15, 30, 50):
            for seed in range(6):
                direct, framed = both_ways(app, random_drill(snippet, rate, seed), htmx)
                assert framed == direct
    assert sum(key[0] == "snippet.html" for key in app.state.templates.frames) == 3 * 4


@pytest.mark.parametrize("htmx", [False, True])
def test_units_and_kinds_fill_one_frame_each(client, htmx):
    app = client.app
    snippet = app.state.library.get("mlm-flash-forward")
    choices = [(unit, kinds) for unit in ("token", "span", "line")
               for kinds in (DEFAULT_KINDS, ("names",), ("operators", "punctuation"), KINDS)]
    for unit, kinds in choices:
        for seed in range(4):
            direct, framed = both_ways(app, random_drill(snippet, 20, seed, unit, kinds), htmx)
            assert framed == direct
            assert (f'name="unit" value="{unit}"'.encode() in framed) == (unit != "token")
    assert sum(key[0] == "snippet.html" for key in app.state.templates.frames) == len(choices)


@pytest.mark.parametrize("unit", ["token", "span", "line"])
@pytest.mark.parametrize("htmx, block", [(False, "trainer"), (True, "outcome")])
def test_scored_units_fill_their_frame(client, unit, htmx, block):
    snippet = client.app.state.library.get("mlm-flash-forward")
    for seed, run in enumerate(RUNS * 2):
        drill = random_drill(snippet, 20, seed, unit)
        result = scored(drill, seed, run, empty=seed % 2 == 0)
        direct, framed = both_ways(client.app, drill, htmx, block, result=result)
        assert framed == direct
        diffed = {"wrong", "unproven"} & set(result.states())
        assert (b'<ul class="diffs">' in framed) == (unit != "token" and bool(diffed))


@pytest.mark.parametrize("htmx, block", [(False, "trainer"), (True, "trainer"), (True, "outcome")])
def test_scored_masks_fill_their_frame(client, htmx, block):
    snippet = client.app.state.library.get("mlm-blocked-attention")
    for seed, run in enumerate(RUNS * 3):
        drill = random_drill(snippet, 20, seed)
        result = scored(drill, seed, run)
        direct, framed = both_ways(client.app, drill, htmx, block, result=result)
        assert framed == direct
        assert (b'data-error-line="7"' in framed) == (run is not None and run.part == "code")
        assert (b"<input" in framed) == (block == "trainer")


def test_fixed_exercises_fill_frames_until_scored(client):
    snippet = client.app.state.library.get("ex3-blocked-matmul")
    drill = fixed_drill(snippet)
    for kwargs in ({}, {"shown": revealed_states(drill.holes), "revealed": True}):
        direct, framed = both_ways(client.app, drill, False, **kwargs)
        assert framed == direct
    result = scored(drill, 1, RUNS[1])
    _, framed = both_ways(client.app, drill, False, shown=result.hole_states(), result=result)
    assert framed is None  # written answers are the learner's own text: rendered directly


@pytest.mark.parametrize("htmx", [False, True])
def test_each_language_fills_its_own_frame(client, htmx):
    """One frame shape, two languages: two frames, and neither leaks into the other's pages."""
    snippet = client.app.state.library.get("mlm-online-softmax")
    pages = {}
    for language in ("zh", "en", "zh", "en"):
        for seed in (1, 2):
            with i18n.speaking(language):
                direct, framed = both_ways(client.app, random_drill(snippet, 20, seed), htmx)
            assert framed == direct
            framed = re.sub(rb"seed=\d+", b"seed=N", framed)  # the "new mask" link has a fresh seed
            assert pages.setdefault((language, seed), framed) == framed  # the same after the other language
    assert b"maskable tokens" in pages["en", 1] and "可挖空位".encode() not in pages["en", 1]
    assert "可挖空位".encode() in pages["zh", 1] and b"maskable tokens" not in pages["zh", 1]
    assert re.search(rb'aria-label="blank 1 of \d+, line \d+"', pages["en", 1])
    assert re.search(rb'aria-label="&#31532; 1 &#31354;', pages["zh", 1])  # 第 1 空, as ASCII
    frames = [key for key in client.app.state.templates.frames if key[0] == "snippet.html"]
    assert sorted(key[-1] for key in frames) == ["en", "zh"]
    assert i18n.language() == "zh"  # the block's language ended with it


def test_pages_served_in_turn_in_two_languages_do_not_mix(client):
    # Through the app: a frame made for an English request, then a Chinese request of the same shape.
    url = "/s/mlm-flash-forward/drill?rate=30&seed=8"
    english, chinese, again = (re.sub(r"seed=\d+", "seed=N", client.get(url, headers={"Accept-Language": lang}).text)
                               for lang in ("en", "zh", "en"))
    assert english == again and english != chinese
    assert "可挖空位" in chinese and "可挖空位" not in english and "Mask rate" in english and "Mask rate" not in chinese


def test_slot_values_are_escaped_like_jinja_escapes_them(client):
    templates = client.app.state.templates
    templates.env.loader = ChoiceLoader([templates.env.loader, DictLoader({
        "slots.html": '<p title="{{ seed }}">{{ seed }}</p><pre>{{ code_html }}</pre>'})])
    request = request_for(client.app, False)
    frame = Frame("escape-test", ("code_html", "seed"))
    for context in ({"seed": "<script>", "code_html": "<i>"}, {"seed": 'a&"b', "code_html": Markup("<i>")},
                    {"seed": 42, "code_html": ""}):
        assert render(request, "slots.html", context, frame=frame).body == \
            render(request, "slots.html", context).body
