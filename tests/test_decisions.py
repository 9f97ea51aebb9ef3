"""A teacher's decisions and the credit they give, as pure functions: anchored to the code of
their line, kept where that code is unchanged, dropped where it changed; an answer credited only
where every token it changes is proven or is a mutant marked equivalent."""

from datetime import UTC, datetime

import pytest

from app.engine.tokens import eligible_spans
from app.learn.credit import Basis, vouched
from app.snippets.decisions import Decision, anchor, decided, proven, resolve
from app.snippets.parse import parse_snippet

pytestmark = pytest.mark.unit

CODE = """def cache_shape(max_batch_size, n_heads, seq_len):
    shape = (max_batch_size, n_heads, seq_len)
    return shape


def flat(n_heads, head_dim):
    return n_heads * head_dim
"""
AT = datetime(2027, 1, 4, tzinfo=UTC)


def index_of(code: str, text: str, line_text: str) -> int:
    line = next(i for i, t in enumerate(code.split("\n")) if line_text in t)
    start = sum(len(t) + 1 for t in code.split("\n")[:line]) + code.split("\n")[line].index(text)
    return next(s.index for s in eligible_spans(code) if s.start == start)


def made(kind: str, code: str = CODE, number: int = 1, **where) -> Decision:
    return Decision(number, anchor(code, kind, **where), "教师 ab12cd", AT, "v1")


def test_a_decision_holds_where_its_line_is_unchanged_and_only_there():
    batch = index_of(CODE, "max_batch_size", "shape = (")
    equivalent = made("equivalent", index=batch, replacement="n_heads")
    line = made("line", number=2, line=7)
    edited = "# a comment above moves every line\n" + CODE.replace("return shape", "return tuple(shape)")
    found = resolve(edited, [equivalent, line])
    assert found.equivalent == {(index_of(edited, "max_batch_size", "shape = ("), "n_heads"): equivalent}
    assert found.lines == {8: line} and not found.stale
    changed = CODE.replace("shape = (max_batch_size, n_heads, seq_len)", "shape = (n_heads, max_batch_size, seq_len)")
    assert resolve(changed, [equivalent]).stale == [equivalent]  # that line's code changed: no longer applies


@pytest.mark.parametrize("kind, where", [("equivalent", {"index": 999, "replacement": "x"}), ("line", {"line": 4})])
def test_a_place_the_code_does_not_have_is_refused(kind, where):
    with pytest.raises(ValueError):
        anchor(CODE, kind, **where)


def test_decisions_turn_survivors_into_equivalents_and_exclusions_and_count_them_apart():
    batch, star = index_of(CODE, "max_batch_size", "shape = ("), index_of(CODE, "*", "return n_heads")
    report = {
        "positions": [
            {"index": batch, "line": 2, "state": "weak", "mutants": [m("n_heads", "passed"), m("seq_len", "failed")]},
            {"index": star, "line": 7, "state": "blind", "mutants": [m("+", "passed")]},
        ],
        "survivors": [
            {"index": batch, "line": 2, "replacement": "n_heads"},
            {"index": star, "line": 7, "replacement": "+"},
        ],
    }
    none = decided(report, resolve(CODE, []))
    assert none["counts"]["weak"] == 1 and none["counts"]["blind"] == 1 and none["score"] == 1 / 3
    both = decided(
        report, resolve(CODE, [made("equivalent", index=batch, replacement="n_heads"), made("line", line=7)])
    )
    assert [p["state"] for p in both["positions"]] == ["caught", "excluded"]
    assert both["counts"]["caught"] == 1 and both["counts"]["excluded"] == 1 and both["counts"]["blind"] == 0
    assert both["survivors"] == [] and [e["replacement"] for e in both["equivalent"]] == ["n_heads"]
    assert both["score"] == 1.0  # the marked mutant and the excluded place count for nothing


def m(replacement: str, status: str) -> dict:
    return {"replacement": replacement, "status": status, "likely_equivalent": False}


def test_credit_follows_what_the_check_proves_or_the_teacher_marked():
    batch, heads = index_of(CODE, "max_batch_size", "shape = ("), index_of(CODE, "n_heads", "shape = (")
    lines = {s.index: CODE.count("\n", 0, s.start) + 1 for s in eligible_spans(CODE)}
    judged = {"tested": [batch, heads], "survivors": {str(batch): ["n_heads"]}}
    weak = Basis("complete", proven(judged, resolve(CODE, []), lines), {})
    assert heads in weak.proven and batch not in weak.proven
    assert not vouched(CODE, (batch, batch), "max_batch_size", "n_heads", weak)  # a survivor's answer
    assert vouched(CODE, (heads, heads), "n_heads", "(n_heads)", weak)  # a caught position
    marked = Basis("complete", weak.proven, {batch: frozenset({"n_heads"})})
    assert vouched(CODE, (batch, batch), "max_batch_size", "n_heads", marked)
    assert not vouched(CODE, (batch, batch), "max_batch_size", "seq_len", marked)  # only what was marked
    # A span: the answer changes only a proven token, though another position in it is weak.
    span = (batch, heads)
    assert vouched(CODE, span, "max_batch_size, n_heads", "max_batch_size, (n_heads)", weak) is False  # other length
    assert vouched(CODE, span, "max_batch_size, n_heads", "n_heads, n_heads", marked)


def test_a_shipped_analysis_gives_the_file_lines_of_the_file_it_is_loaded_with(tmp_path):
    from app.snippets.shipped_strength import shipped, write

    text = "---\ntitle: t\nsummary: s\nlevel: 1\n---\n\n```python\ndef f(x):\n    return x\n```\n\n```python check\nassert f(1) == 1\n```\n"
    report = {
        "positions": [{"index": 2, "line": 2, "file_line": 9, "state": "weak"}],
        "survivors": [{"index": 2, "line": 2, "file_line": 9, "replacement": "f"}],
        "reference_failures": [{"seed": 1, "part": "check", "line": 1, "file_line": 13}],
    }
    write(tmp_path, parse_snippet(text, "f"), report)
    longer = text.replace("---\n\n```python", "---\n\nTwo lines of prose\nbefore the code.\n\n```python")
    found = shipped(tmp_path, parse_snippet(longer, "f"))["report"]  # the same code and check
    assert [p["file_line"] for p in found["positions"] + found["survivors"]] == [12, 12]
    assert found["reference_failures"][0]["file_line"] == 16
