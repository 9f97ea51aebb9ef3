import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import render
from app.engine.inputs import HoleState, mark_names
from app.engine.mask import SEED_MAX, blank_count, random_mask
from app.engine.render import blanks_shown
from app.engine.score import Hole, is_match, score, splice
from app.engine.tokens import DEFAULT_KINDS, KINDS, candidate_spans, eligible_spans, token_sequence
from app.learn.drills import random_drill
from app.settings import PROJECT_DIR
from app.snippets.library import SnippetLibrary
from app.web.templating import make_templates

pytestmark = pytest.mark.unit


def bundled():
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    return library.all()


SNIPPETS = bundled()
SNIPPET_BY_ID = {s.id: s for s in SNIPPETS}
TEMPLATES = make_templates().env


def texts(code: str) -> list[str]:
    return [s.text for s in eligible_spans(code)]


def test_eligible_tokens_follow_the_rules():
    code = "def f(a, b=2):\n    x = a.max(dim=-1)  # note\n    x += len('s'); return x if a else None\n"
    assert texts(code) == ["f", "a", "b", "2", "x", "a", "max", "dim", "-", "1", "x", "+=", "len", "'s'", "x", "a"]
    assert "def" not in texts(code) and "=" not in texts(code) and ";" not in texts(code)
    everything = [s.text for s in candidate_spans(code)]
    assert everything == [
        "f",
        "(",
        "a",
        ",",
        "b",
        "2",
        ")",
        ":",
        "x",
        "a",
        ".",
        "max",
        "(",
        "dim",
        "-",
        "1",
        ")",
        "x",
        "+=",
        "len",
        "(",
        "'s'",
        ")",
        "x",
        "a",
    ]
    assert [s.text for s in eligible_spans(code, KINDS)] == everything
    assert {s.text for s in eligible_spans(code, ("punctuation",))} == {"(", ")", ",", ":", "."}
    assert [s.text for s in eligible_spans(code, ("operators",))] == ["-", "+="]


def test_a_span_index_is_the_same_token_whatever_the_kinds():
    code = SNIPPET_BY_ID["mlm-flash-forward"].code
    by_index = {s.index: s for s in candidate_spans(code)}
    assert [s.index for s in candidate_spans(code)] == list(range(len(by_index)))
    for kinds in (DEFAULT_KINDS, ("names",), ("literals", "punctuation"), KINDS):
        for span in eligible_spans(code, kinds):
            assert by_index[span.index] == span and span.kind in kinds


# The third drill exactly as the seed course prints it (a fragment of the function: no `def`,
# no q_start/q_end lines, `return O` unindented at the end); the other two print the bundled
# snippets' code.
SEED_FLASH_FORWARD = """O = torch.zeros(N, d)
l = torch.zeros(N, 1)
m = torch.full((N, 1), float('-inf'))

for j in range(num_blocks):
    k_j = K[j * block_size:(j + 1) * block_size]
    v_j = V[j * block_size:(j + 1) * block_size]
    for i in range(num_blocks):
        q_i = Q[q_start:q_end]
        o_i = O[q_start:q_end]
        l_i = l[q_start:q_end]
        m_i = m[q_start:q_end]

        s_ij = q_i @ k_j.T / math.sqrt(d)
        m_ij = s_ij.max(dim=-1, keepdim=True).values
        m_new = torch.max(m_i, m_ij)
        p_ij = torch.exp(s_ij - m_new)
        l_new = l_i * torch.exp(m_i - m_new) + p_ij.sum(dim=-1, keepdim=True)

        alpha = l_i * torch.exp(m_i - m_new) / l_new
        beta = 1.0 / l_new
        o_i = alpha * o_i + beta * (p_ij @ v_j)

        O[q_start:q_end] = o_i
        l[q_start:q_end] = l_new
        m[q_start:q_end] = m_new
return O
"""


def test_eligible_counts_of_the_seed_drills():
    assert len(eligible_spans(SNIPPET_BY_ID["mlm-online-softmax"].code)) == 64
    assert len(eligible_spans(SNIPPET_BY_ID["mlm-blocked-attention"].code)) == 84
    assert len(eligible_spans(SEED_FLASH_FORWARD)) == 139
    assert len(eligible_spans(SNIPPET_BY_ID["mlm-flash-forward"].code)) == 162
    # The completed function adds exactly the 23 eligible tokens of what the seed leaves out.
    missing = (
        "def flash_attention_forward(Q, K, V, block_size):\n    N, d = Q.shape\n"
        "    num_blocks = N // block_size\nq_start = i * block_size\nq_end = (i + 1) * block_size\n"
    )
    assert len(eligible_spans(missing)) == 23
    # Before: brackets, commas, colons and dots too.
    assert len(candidate_spans(SNIPPET_BY_ID["mlm-flash-forward"].code)) == 254  # 76 blanks at 30 %


def test_spans_point_at_their_text():
    for snippet in SNIPPETS:
        for span in eligible_spans(snippet.code):
            assert snippet.code[span.start : span.end] == span.text


@pytest.mark.parametrize(
    "given, expected",
    [
        ("x.max(dim=-1)", " x . max ( dim = - 1 ) "),
        ("'-inf'", '"-inf"'),
        ("a  # a comment", "a"),
    ],
)
def test_whitespace_comments_and_quote_style_never_matter(given, expected):
    assert is_match(given, expected)


@pytest.mark.parametrize(
    "given, expected",
    [
        ("torch.maximum(m_i, m_ij)", "torch.max(m_i, m_ij)"),
        ("x", "y"),
        ("", "x"),
        ("1.0", "1"),
        ("(", ")"),
    ],
)
def test_different_tokens_do_not_match(given, expected):
    assert not is_match(given, expected)


CODE_TEXT = st.lists(
    st.sampled_from(
        [
            *"ab1_.()[]:,+-*/=<>!@%~^&|{}",
            "m_ij",
            "torch",
            "0x",
            "e5",
            " ",
            "\t",
            "1e4",
            "10000.0",
            ".5",
            "0.5",
            "1_0",
            "10",
        ]
    ),
    max_size=8,
).map("".join)


@given(CODE_TEXT, CODE_TEXT)
@settings(max_examples=2000, deadline=None)
def test_shortcuts_agree_with_comparing_token_sequences(given_text, expected_text):
    expected = expected_text.strip()
    slow = given_text.strip() == expected or token_sequence(given_text) == token_sequence(expected)
    assert is_match(given_text, expected) == slow


def test_fragments_that_do_not_tokenize_compare_as_text():
    assert token_sequence("(") == ("(",)
    assert token_sequence("x $ y") == ("x $ y",)
    assert not is_match("x $ y", "x")


def test_score_and_splice():
    code = "y = a + b\n"
    holes = [Hole("s0", 4, 5, "a"), Hole("s2", 8, 9, "b")]
    verdicts = score(holes, {"s0": " a ", "s2": "c"})
    assert [v.correct for v in verdicts] == [True, False]
    assert splice(code, holes, {"s0": "a", "s2": "c * 2"}) == "y = a + c * 2\n"


@settings(max_examples=300, deadline=None)
@given(snippet=st.sampled_from(SNIPPETS), rate=st.integers(10, 50), seed=st.integers(0, SEED_MAX))
def test_mask_properties(snippet, rate, seed):
    spans = eligible_spans(snippet.code)
    drill = random_drill(snippet, rate, seed)
    assert len(drill.holes) == max(1, round(rate * len(spans) / 100)) == blank_count(rate, len(spans))
    starts = [h.start for h in drill.holes]
    assert starts == sorted(starts)
    assert all(a.end <= b.start for a, b in zip(drill.holes, drill.holes[1:]))  # none overlap
    eligible = {(s.start, s.end) for s in spans}
    assert all((h.start, h.end) in eligible for h in drill.holes)
    reference = {h.key: h.answer for h in drill.holes}
    assert token_sequence(splice(snippet.code, list(drill.holes), reference)) == token_sequence(snippet.code)
    assert random_drill(snippet, rate, seed).holes == drill.holes


@settings(max_examples=200, deadline=None)
@given(snippet=st.sampled_from(SNIPPETS), rate=st.integers(10, 50), seed=st.integers(0, SEED_MAX - 1))
def test_different_seeds_give_different_masks(snippet, rate, seed):
    n = len(eligible_spans(snippet.code))
    assert random_mask(snippet.version, n, rate, seed) != random_mask(snippet.version, n, rate, seed + 1)


def test_mask_depends_on_the_version():
    assert random_mask("aaaaaaaaaaaa", 100, 20, 7) != random_mask("bbbbbbbbbbbb", 100, 20, 7)


def test_fixed_blanks_splice_back_to_the_reference():
    for snippet in (s for s in SNIPPETS if s.is_exercise):
        holes = [Hole(f"c{b.index}", b.start, b.end, b.answer) for b in snippet.blanks]
        assert splice(snippet.code, holes, {h.key: h.answer for h in holes}) == snippet.code


def render_code(code, holes, shown=None) -> str:
    """The code with its blanks as the page's template writes them."""
    module = TEMPLATES.get_template("_blank.html").make_module()
    return str(module.code(blanks_shown(code, holes, shown or {}), mark_names()))


def test_render_puts_one_input_per_hole_and_keeps_the_rest():
    code = "x = foo(a, 'b<')\n"
    spans = eligible_spans(code)
    holes = [Hole("s1", spans[1].start, spans[1].end, "foo", "空 1")]
    html = render_code(code, holes, {"s1": HoleState('"><script>', "wrong", reveal=True)})
    assert html.count("<input") == 1
    assert 'name="s1"' in html and 'class="blank wrong"' in html
    assert "data-answer" not in html and "foo" not in html  # the answer stays on the server
    assert "<script>" not in html and "b&lt;" in html
    assert html.count('<span class="line">') == 1
    assert 'aria-invalid="true"' in html and 'name="reveal" value="s1"' in html and "✗" in html


@settings(max_examples=60, deadline=None)
@given(snippet=st.sampled_from(SNIPPETS), rate=st.integers(10, 50), seed=st.integers(0, SEED_MAX))
def test_the_lexed_tokens_cache_changes_no_byte(snippet, rate, seed):
    holes = list(random_drill(snippet, rate, seed).holes)
    shown = {holes[0].key: HoleState("x < y", "wrong", reveal=True)}
    tricky = "x = 'a'  # c\n\n  y = f(x,\n        2)"  # no trailing newline, continuation lines
    some = [Hole(f"s{s.index}", s.start, s.end, s.text) for s in eligible_spans(tricky)[::2]]
    cases = [(snippet.code, holes, shown), (snippet.code, [], None), (tricky, some, None)]
    cached = [render_code(*case) for case in cases]
    real = render.atoms
    render.atoms = real.__wrapped__  # lexed and cut afresh on every call
    try:
        assert [render_code(*case) for case in cases] == cached
    finally:
        render.atoms = real


def test_inert_places_are_kinds_of_their_own_and_not_blanks_by_default():
    code = (
        'import logging, warnings\n\n\n@functools.cache\ndef f(x: int, y: "list[int]" = None) -> dict[str, int]:\n'
        '    """Doc."""\n    a: float = x @ y\n    print("hi", a, f"v={a}")\n    logging.info("m %s", a)\n'
        '    logger.warning("w")\n    warnings.warn("old", DeprecationWarning)\n    assert a, "no"\n'
        '    if a:\n        raise ValueError("bad " + str(a))\n    return {"k": a}\n'
    )
    kinds = {}
    for span in candidate_spans(code):
        kinds.setdefault(span.kind, []).append(span.text)
    assert kinds["annotations"] == ["int", '"list[int]"', "dict", "[", "str", ",", "int", "]", "float"]
    assert kinds["docstrings"] == ['"""Doc."""']
    assert kinds["messages"] == ['"hi"', 'f"v={a}"', '"m %s"', '"w"', '"old"', '"no"', '"bad "']
    assert "@" in kinds["punctuation"] and kinds["operators"].count("@") == 1  # the decorator's, then x @ y
    default = texts(code)
    assert '"k"' in default and "a" in default and "DeprecationWarning" in default and "print" in default
    assert not {"float", '"hi"', '"""Doc."""', '"bad "'} & set(default)
    opted = [s.text for s in eligible_spans(code, ("names", "literals", "operators", "annotations", "messages"))]
    assert "float" in opted and '"hi"' in opted and '"""Doc."""' not in opted
    # The candidate index is the same whichever kinds a mask uses.
    assert [s.index for s in eligible_spans(code)] == [
        s.index for s in candidate_spans(code) if s.kind in DEFAULT_KINDS
    ]


def test_the_seed_drills_have_no_inert_places():
    for snippet_id in ("mlm-online-softmax", "mlm-blocked-attention", "mlm-flash-forward"):
        assert not {s.kind for s in candidate_spans(SNIPPET_BY_ID[snippet_id].code)} - {
            "names",
            "literals",
            "operators",
            "punctuation",
        }


def test_a_mask_may_opt_into_the_inert_kinds():
    snippet = SNIPPET_BY_ID["ex2-online-softmax"]
    docstrings = [s for s in candidate_spans(snippet.code) if s.kind == "docstrings"]
    assert [s.text for s in docstrings] == ['"""朴素 softmax（可能溢出）"""', '"""数值稳定的 softmax"""']
    drill = random_drill(snippet, 50, 3, "token", ("docstrings",))
    assert len(drill.holes) == 1 and drill.holes[0].span[0] in {s.index for s in docstrings}  # 50 % of 2
