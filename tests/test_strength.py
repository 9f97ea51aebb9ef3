"""Check strength: one-token mutants of the reference code, and how many the check catches."""
import asyncio
import time
from types import SimpleNamespace

import pytest

from app.engine.tokens import candidate_spans
from app.sandbox import Limits, Sandbox
from app.settings import PROJECT_DIR
from app.snippets.parse import parse_snippet
from app.snippets.strength import NOT_RUN, check_strength, mutants

CODE = '''import math

def norm(v, p=2):
    """The p-norm of a sequence."""
    return math.fsum(abs(x) ** p for x in v) ** (1.0 / p)

def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x

def safe_max(v):
    best = float('-inf')
    for x in v:
        best = max(best, x)
    return best
'''
STRONG = '''assert abs(norm([3, 4]) - 5) < 1e-9
assert abs(norm([1, -1, 1, -1], p=1) - 4) < 1e-9
assert clamp(-1, 0, 10) == 0 and clamp(11, 0, 10) == 10 and clamp(5, 0, 10) == 5
assert safe_max([-3, -7]) == -3 and safe_max([]) == float('-inf')
'''
WEAK = "assert callable(norm) and callable(clamp) and callable(safe_max)\n"


def snippet_text(code: str, check: str) -> str:
    return f"---\ntitle: t\nsummary: s\nlevel: 1\n---\n\n```python\n{code}```\n\n```python check\n{check}```\n"


def snippet(code: str = CODE, check: str = STRONG, snippet_id: str = "norms"):
    return parse_snippet(snippet_text(code, check), snippet_id)


def at(code: str, needle: str, line_text: str) -> tuple[int, int]:
    """(line, column), 1-based, of `needle` on the first line containing `line_text`."""
    line = next(i for i, text in enumerate(code.split("\n"), 1) if line_text in text)
    return line, code.split("\n")[line - 1].index(needle) + 1


# -- mutants: pure ------------------------------------------------------------------------

def test_each_mutant_compiles_and_differs_at_exactly_its_span():
    spans = candidate_spans(CODE)
    found = mutants(snippet(), max_mutants=1000)
    assert found
    for m in found:
        span = spans[m.span_index]
        assert m.original == span.text != m.replacement
        assert m.code == CODE[:span.start] + m.replacement + CODE[span.end:]
        compile(m.code, "<mutant>", "exec")
        assert m.line == CODE.count("\n", 0, span.start) + 1
        assert m.column == span.start - CODE.rfind("\n", 0, span.start)


def test_mutants_are_deterministic_and_bounded():
    assert mutants(snippet()) == mutants(snippet())
    few = mutants(snippet(), max_mutants=5)
    assert len(few) == 5
    assert len({m.line for m in few}) == 5  # spread over the lines, not bunched
    assert [m.span_index for m in few] == sorted(m.span_index for m in few)


def test_mutations_by_kind():
    found = {(m.original, m.replacement) for m in mutants(snippet(), max_mutants=1000)}
    assert ("'-inf'", "'inf'") in found
    assert ("2", "3") in found and ("1.0", "2.0") in found
    assert {("**", "*"), ("<", ">"), (">", "<"), ("/", "*")} <= found
    names = {t.text for t in candidate_spans(CODE) if t.text.isidentifier()}
    assert any(a in names and b in names for a, b in found)
    originals = {a for a, _ in found}
    assert not originals & {"(", ")", "[", "]", ",", ":", "."}


def test_declarations_and_docstrings_are_not_mutated():
    found = mutants(snippet(), max_mutants=1000)
    columns = {(m.line, m.column) for m in found}
    assert at(CODE, "norm", "def norm") not in columns
    assert at(CODE, "low", "def clamp") not in columns
    assert not any(m.original.startswith('"""') for m in found)


def test_fixed_blanks_are_preferred():
    marked = CODE.replace("float('-inf')", "{{c1::float('-inf')}}").replace("max(best, x)", "{{c2::max(best, x)}}")
    exercise = snippet(marked)
    inside = {s.index for s in candidate_spans(exercise.code)
              if any(b.start <= s.start and s.end <= b.end for b in exercise.blanks)}
    assert {m.span_index for m in mutants(exercise, max_mutants=3)} <= inside


# -- against the sandbox ------------------------------------------------------------------

@pytest.fixture(scope="module")
def box():
    """One sandbox with short limits, driven from its own event loop (no pytest-asyncio)."""
    loop = asyncio.new_event_loop()
    sandbox = Sandbox(Limits(cpu_seconds=2, wall_seconds=4, memory_bytes=512 << 20), workers=2, queue=8,
                      uid_base=61100)
    loop.run_until_complete(sandbox.start())
    yield SimpleNamespace(sandbox=sandbox, run=loop.run_until_complete)
    loop.run_until_complete(sandbox.close())
    loop.close()


def test_a_strong_check_catches_most_mutants(box):
    progress = []
    report = box.run(check_strength(snippet(), box.sandbox, on_progress=lambda d, t: progress.append((d, t))))
    assert report.total_run == len(report.results) > 10
    assert report.score >= 0.9, [(r.mutant.original, r.mutant.replacement) for r in report.survivors]
    total = len(report.results)
    assert progress[0] == (0, total) and progress[-1] == (total, total)


def test_a_weak_check_lets_mutants_survive_and_lists_them(box):
    report = box.run(check_strength(snippet(check=WEAK), box.sandbox, max_mutants=1000))
    assert report.score < 0.3
    survivors = {(r.mutant.original, r.mutant.replacement): r.mutant for r in report.survivors}
    inf = survivors[("'-inf'", "'inf'")]
    assert (inf.line, inf.column) == at(CODE, "'-inf'", "float('-inf')")
    assert all(not r.caught for r in report.survivors)


def test_mutants_beyond_the_budget_are_not_run_not_caught(box):
    slow = snippet(check="import time\ntime.sleep(0.4)\n" + WEAK)
    started = time.monotonic()
    report = box.run(check_strength(slow, box.sandbox, budget_seconds=1.5))
    assert time.monotonic() - started < 3
    not_run = [r for r in report.results if r.status == NOT_RUN]
    assert 0 < report.total_run < len(report.results) and not_run
    assert not any(r.caught for r in not_run)
    assert report.score == report.caught / report.total_run


def test_bundled_online_softmax_check_misses_a_renamed_max(box):
    path = PROJECT_DIR / "snippets" / "ex2-online-softmax.md"
    ex2 = parse_snippet(path.read_text(encoding="utf-8"), path.stem)
    report = box.run(check_strength(ex2, box.sandbox))
    print(f"ex2 check strength {report.score:.0%}: {report.caught}/{report.total_run} in {report.seconds:.1f} s")
    assert report.total_run == len(report.results) == 40
    assert 0.5 < report.score < 1
    assert any(r.mutant.original == "m" for r in report.survivors)
