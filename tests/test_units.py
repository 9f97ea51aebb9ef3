"""Masks per unit and kind: counts, reproducibility, spans aligned to sub-expressions, lines whole."""

import ast

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.engine.mask import SEED_MAX, blank_count
from app.engine.score import splice
from app.engine.tokens import KINDS, candidate_spans, eligible_spans, token_sequence
from app.engine.units import SPAN_MAX, line_pieces
from app.learn.drills import parse_kinds, random_drill
from tests.test_engine import SNIPPETS

pytestmark = pytest.mark.unit

KIND_SETS = st.sets(st.sampled_from(KINDS), min_size=1).map(lambda s: tuple(k for k in KINDS if k in s))
MASKS = dict(
    snippet=st.sampled_from(SNIPPETS), rate=st.integers(10, 50), seed=st.integers(0, SEED_MAX), kinds=KIND_SETS
)


def segments(code: str) -> set[str]:
    """The text of every one-line sub-expression and keyword argument of the code."""
    return {
        ast.get_source_segment(code, node)
        for node in ast.walk(ast.parse(code))
        if isinstance(node, (ast.expr, ast.keyword)) and node.lineno == node.end_lineno
    }


def inside(code, hole, kinds):
    return [s for s in eligible_spans(code, kinds) if hole.start <= s.start and s.end <= hole.end]


def assert_common(snippet, drill):
    code = snippet.code
    assert all(a.end <= b.start for a, b in zip(drill.holes, drill.holes[1:]))  # sorted, none overlap
    assert all("\n" not in h.answer and h.answer == code[h.start : h.end] for h in drill.holes)
    by_index = {s.index: s for s in candidate_spans(code)}
    for hole in drill.holes:  # the recorded range: first and last candidate token inside
        first, last = hole.span
        assert hole.key == f"s{first}" and by_index[first].start >= hole.start and by_index[last].end <= hole.end
        assert all(hole.start <= by_index[i].start for i in range(first, last + 1))
    reference = {h.key: h.answer for h in drill.holes}
    assert token_sequence(splice(code, list(drill.holes), reference)) == token_sequence(code)
    assert random_drill(snippet, drill.rate, drill.seed, drill.unit, drill.kinds).holes == drill.holes  # reproducible


@settings(max_examples=300, deadline=None)
@given(**MASKS)
def test_span_masks_hide_the_rates_share_in_whole_sub_expressions(snippet, rate, seed, kinds):
    drill = random_drill(snippet, rate, seed, "span", kinds)
    code, eligible = snippet.code, len(eligible_spans(snippet.code, kinds))
    assert drill.eligible == eligible
    sizes = [len(inside(code, h, kinds)) for h in drill.holes]
    assert sum(sizes) == drill.hidden == blank_count(rate, eligible)
    assert all(1 <= n <= SPAN_MAX for n in sizes)
    aligned, singles = segments(code), {s.text for s in eligible_spans(code, kinds)}
    for hole, n in zip(drill.holes, sizes):
        assert hole.answer in aligned or (n == 1 and hole.answer in singles), hole.answer
    assert_common(snippet, drill)


@settings(max_examples=300, deadline=None)
@given(**MASKS)
def test_line_masks_hide_whole_lines(snippet, rate, seed, kinds):
    drill = random_drill(snippet, rate, seed, "line", kinds)
    code = snippet.code
    lines = line_pieces(code, kinds)
    assert drill.lines == len(lines) and len(drill.holes) == blank_count(rate, len(lines))
    statements = {n.lineno: n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.stmt)}
    for hole in drill.holes:
        number = code.count("\n", 0, hole.start) + 1
        text = code.split("\n")[number - 1].split("#")[0].strip()
        node = statements[number]
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            assert hole.answer == ast.get_source_segment(code, node.value)  # the target stays as a cue
            assert text.endswith(hole.answer)
        else:
            assert hole.answer == text  # the statement after its indentation, whole
        assert inside(code, hole, kinds)
    assert_common(snippet, drill)


@settings(max_examples=200, deadline=None)
@given(**MASKS)
def test_token_masks_draw_only_the_chosen_kinds(snippet, rate, seed, kinds):
    drill = random_drill(snippet, rate, seed, "token", kinds)
    chosen = {(s.start, s.end): s for s in eligible_spans(snippet.code, kinds)}
    assert len(drill.holes) == blank_count(rate, len(chosen)) == drill.hidden
    assert all(
        chosen[(h.start, h.end)].kind in kinds and h.span == (chosen[(h.start, h.end)].index,) * 2 for h in drill.holes
    )
    assert_common(snippet, drill)


@settings(max_examples=100, deadline=None)
@given(snippet=st.sampled_from(SNIPPETS), rate=st.integers(10, 50), seed=st.integers(0, SEED_MAX - 1))
@example(snippet=next(s for s in SNIPPETS if s.id == "ex1-attention-memory"), rate=11, seed=SEED_MAX - 2)
def test_every_input_of_a_mask_changes_it(snippet, rate, seed):
    def keys(**change):
        args = {"rate": rate, "seed": seed, "unit": "span", "kinds": ("names", "literals", "operators"), **change}
        return random_drill(snippet, args["rate"], args["seed"], args["unit"], args["kinds"]).holes

    base = keys()
    # Two seeds may draw the same small mask by chance, and so may a line and a span (one blank
    # of ex1 at 11 %, seed 2**53 - 3: a line piece that is exactly the span); a handful of seeds
    # never all do.
    near = [seed + i for i in range(6)]
    assert any(keys(seed=s) != base for s in near[1:])
    assert any(keys(seed=s, unit="line") != keys(seed=s) for s in near)
    assert any(keys(seed=s, kinds=("names",)) != keys(seed=s) for s in near)


def test_kinds_parse_in_any_order_to_one_tuple():
    assert parse_kinds("operators,names") == ("names", "operators")
    assert parse_kinds(None) == ("names", "literals", "operators")
    assert parse_kinds("punctuation, names ,names") == ("names", "punctuation")


@settings(max_examples=120, deadline=None)
@given(unit=st.sampled_from(["span", "line"]), **MASKS)
def test_span_and_line_blanks_replace_exactly_their_text(snippet, rate, seed, kinds, unit):
    from html.parser import HTMLParser

    from app.engine.inputs import HoleState
    from tests.test_engine import render_code

    class Text(HTMLParser):
        """The code's text, leaving out what a blank adds (its mark and its reveal button)."""

        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.text, self.inputs, self.marks, self.added = [], 0, 0, None

        def handle_starttag(self, tag, attrs):
            self.inputs += tag == "input"
            if tag == "button" or (tag == "span" and "mark" in (dict(attrs).get("class") or "")):
                self.marks += tag == "span"
                self.added = tag

        def handle_endtag(self, tag):
            if tag == self.added:
                self.added = None

        def handle_data(self, data):
            if self.added is None:
                self.text.append(data)

    holes = list(random_drill(snippet, rate, seed, unit, kinds).holes)
    shown = {
        h.key: HoleState(h.answer + " <x>", state, True)
        for h, state in zip(holes[::2], ["wrong", "empty", "right", "revealed"] * 20)
    }
    kept, end = [], 0
    for hole in sorted(holes, key=lambda h: h.start):
        kept.append(snippet.code[end : hole.start])
        end = hole.end
    kept.append(snippet.code[end:])
    page = Text()
    page.feed(render_code(snippet.code, holes, shown))
    assert "".join(page.text) == "".join(kept)
    assert page.inputs == len(holes) and page.marks == len(shown)
