"""Check strength: one-token mutants of the reference code, and how many the check catches."""

import asyncio
import time
from types import SimpleNamespace

import pytest

from app.engine.tokens import candidate_spans, eligible_spans
from app.sandbox import Limits, Sandbox
from app.snippets.mutants import PER_POSITION
from app.snippets.parse import parse_snippet
from app.snippets.strength import NOT_RUN, check_strength, mutants

pytestmark = pytest.mark.server

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
STRONG = """assert abs(norm([3, 4]) - 5) < 1e-9
assert abs(norm([1, -1, 1, -1], p=1) - 4) < 1e-9
assert clamp(-1, 0, 10) == 0 and clamp(11, 0, 10) == 10 and clamp(5, 0, 10) == 5
assert safe_max([-3, -7]) == -3 and safe_max([]) == float('-inf')
"""
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
    found = mutants(snippet())
    assert found
    for m in found:
        span = spans[m.span_index]
        assert m.original == span.text != m.replacement
        assert m.code == CODE[: span.start] + m.replacement + CODE[span.end :]
        compile(m.code, "<mutant>", "exec")
        assert m.line == CODE.count("\n", 0, span.start) + 1
        assert m.column == span.start - CODE.rfind("\n", 0, span.start)


def test_every_eligible_position_gets_a_few_mutants():
    found = mutants(snippet())
    by_position = {}
    for m in found:
        by_position.setdefault(m.span_index, []).append(m.replacement)
    spans = candidate_spans(CODE)
    missing = {
        (spans[i].text, CODE.count("\n", 0, spans[i].start) + 1)
        for i in {s.index for s in eligible_spans(CODE)} - set(by_position)
    }
    # None that compiles: math has no other attribute here; clamp's parameters only each other's names.
    assert missing == {("fsum", 5), ("x", 7), ("low", 7), ("high", 7)}
    assert all(1 <= len(r) <= PER_POSITION == 3 and len(set(r)) == len(r) for r in by_position.values())
    assert max(map(len, by_position.values())) == 3
    assert [m.span_index for m in found] == sorted(m.span_index for m in found)
    assert len(mutants(snippet(), per_position=1)) == len(by_position)


def test_mutants_depend_on_the_code_alone():
    """Seeded by the code's text: another check (a new version) gets exactly the same mutants."""
    first = mutants(snippet())
    assert first == mutants(snippet(check=WEAK)) == mutants(snippet(snippet_id="other"))
    assert snippet().version != snippet(check=WEAK).version
    moved = CODE.replace("return best", "return best  # the largest")
    assert {(m.line, m.original) for m in mutants(snippet(moved))} == {(m.line, m.original) for m in first}


def test_mutations_by_kind():
    found = {(m.original, m.replacement) for m in mutants(snippet())}
    assert ("'-inf'", "'inf'") in found
    assert {("2", "3"), ("2", "1"), ("1.0", "2.0"), ("1.0", "0.5")} <= found
    assert {("**", "*"), ("<", ">"), ("<", "<="), (">", "<"), ("/", "*")} <= found
    names = {t.text for t in candidate_spans(CODE) if t.text.isidentifier()}
    assert any(a in names and b in names for a, b in found)
    originals = {a for a, _ in found}
    assert not originals & {"(", ")", "[", "]", ",", ":", "."}


def test_inert_places_get_no_mutants_declarations_do():
    code = CODE.replace("def clamp(x, low, high):", "def clamp(x: float, low: float, high: float) -> float:")
    code = code.replace("    return x\n", "    print('clamped', x)\n    return x\n")
    found = mutants(snippet(code))
    assert not any(m.original.startswith('"""') or m.original == "'clamped'" for m in found)
    assert not any(m.original == "float" and "def clamp" in code.split("\n")[m.line - 1] for m in found)
    columns = {(m.line, m.column) for m in found}
    assert at(code, "norm", "def norm") in columns  # renaming a function: the check calls it by name
    assert at(code, "v", "def safe_max") in columns  # a renamed parameter: its uses fail


# -- against the sandbox ------------------------------------------------------------------


@pytest.fixture(scope="module")
def box():
    """One sandbox with short limits, driven from its own event loop (no pytest-asyncio)."""
    loop = asyncio.new_event_loop()
    sandbox = Sandbox(Limits(cpu_seconds=2, wall_seconds=4, memory_bytes=512 << 20), workers=2, queue=8, uid_base=61100)
    loop.run_until_complete(sandbox.start())
    yield SimpleNamespace(sandbox=sandbox, run=loop.run_until_complete)
    loop.run_until_complete(sandbox.close())
    loop.close()


def test_a_strong_check_catches_most_mutants(box):
    progress = []
    report = box.run(check_strength(snippet(), box.sandbox, on_progress=lambda d, t: progress.append((d, t))))
    assert report.total_run == len(report.results) > 30 and report.complete
    assert report.score >= 0.9, [(r.mutant.original, r.mutant.replacement) for r in report.survivors]
    total = progress[-1][1]
    assert progress[0] == (0, len(report.results)) and progress[-1] == (total, total) >= (len(report.results),) * 2
    assert {p.span_index for p in report.positions} == {s.index for s in eligible_spans(CODE)}
    counts = report.counts()
    assert sum(counts.values()) == len(report.positions) and counts["caught"] > counts["weak"] + counts["blind"]


def test_a_weak_check_lets_mutants_survive_and_lists_them(box):
    report = box.run(check_strength(snippet(check=WEAK), box.sandbox))
    assert report.score < 0.3
    survivors = {(r.mutant.original, r.mutant.replacement): r.mutant for r in report.survivors}
    inf = survivors[("'-inf'", "'inf'")]
    assert (inf.line, inf.column) == at(CODE, "'-inf'", "float('-inf')")
    assert all(not r.caught for r in report.survivors)
    states = {(p.line, p.column): p.state for p in report.positions}
    assert states[at(CODE, "'-inf'", "float('-inf')")] == "blind"
    assert report.counts()["blind"] > report.counts()["caught"]
    assert not report.caught_positions() & {p.span_index for p in report.positions if p.state != "caught"}


def test_a_mutant_that_changes_nothing_is_a_survivor_with_a_hint_not_a_verdict(box):
    # `l = 0.0` → `1.0`: the first step multiplies l by exp(-inf) = 0, so no check can tell. It
    # looks equivalent, and that is for the teacher to confirm: the position gives no credit.
    code = (
        "def total_exp(row):\n    m = float('-inf')\n    l = 0.0\n    for x in row:\n"
        "        m_new = max(m, x)\n        l = l * math.exp(m - m_new) + math.exp(x - m_new)\n"
        "        m = m_new\n    return l, m\n"
    )
    check = (
        "import math, random\nrandom.seed(5)\nrow = [random.uniform(-9, 9) for _ in range(6)]\n"
        "l, m = total_exp(row)\nassert abs(l - sum(math.exp(x - max(row)) for x in row)) < 1e-9\n"
        "assert m == max(row)\n"
    )
    report = box.run(check_strength(snippet(code, check), box.sandbox))
    survivors = {(r.mutant.original, r.mutant.replacement): r for r in report.survivors}
    one = survivors[("0.0", "1.0")]
    assert one.likely_equivalent and {"kind": "same_trace"} in one.reasons
    zero = next(p for p in report.positions if p.text == "0.0")
    assert zero.state == "blind" and zero.span_index not in report.caught_positions()
    assert report.score < 1 and not report.reference_failures


# Sizes equal in the check's data, a branch the check never takes, a default always overridden.
HIDDEN = """def cache_shape(max_batch_size, n_heads, seq_len, head_dim):
    return (max_batch_size, n_heads, seq_len, head_dim)


def scaled(x, factor, normalize=False, clip=False):
    if normalize:
        x = x / abs(x)
    if clip:
        x = min(x, 1.0)
    return x * factor


def mean(values, eps=1e-6):
    return sum(values) / (len(values) + eps)
"""
HIDDEN_CHECK = """assert cache_shape(4, 4, 16, 8) == (4, 4, 16, 8)
assert scaled(3.0, 2.0) == 6.0
assert abs(mean([1.0, 3.0], eps=0.0) - 2.0) < 1e-9
"""


def test_each_survivor_says_why_the_check_missed_it(box):
    code = HIDDEN
    report = box.run(check_strength(snippet(code, HIDDEN_CHECK, "hidden"), box.sandbox))
    reasons = {(r.mutant.line, r.mutant.original, r.mutant.replacement): r.reasons for r in report.survivors}

    def kinds(line_text: str, original: str, replacement: str) -> list[str]:
        line = next(i for i, t in enumerate(code.split("\n"), 1) if line_text in t)
        return [r["kind"] for r in reasons[(line, original, replacement)]]

    swapped = next(k for k in reasons if k[1] == "max_batch_size" and k[2] == "n_heads")
    values = next(r for r in reasons[swapped] if r["kind"] == "values")
    assert values["value"] == "4" and {values["a"], values["b"]} == {"max_batch_size", "n_heads"}
    assert "not_run" in kinds("x = x / abs(x)", "/", "*")
    flags = reasons[(6, "normalize", "clip")]  # `if clip:` for `if normalize:`, both always False
    assert {"kind": "branch", "line": 6, "test": "normalize", "always": False} in flags
    assert any(r["kind"] == "values" and r["value"] == "False" for r in flags)
    assert "default_unused" in kinds("def mean(values, eps=1e-6):", "1e-6", "2e-06")
    for r in report.survivors:  # none of them counts as caught, whatever it looks like
        assert r.mutant.span_index not in report.caught_positions()


def test_a_check_that_fails_under_other_seeds_is_said_so(box):
    code = "import random\n\ndef noise(n):\n    return [random.random() for _ in range(n)]\n"
    check = "random.seed(1)\nvalues = noise(3)\nassert len(values) == 3\nassert values[0] < 0.2\n"
    report = box.run(check_strength(snippet(code, check, "seeded"), box.sandbox))
    assert report.survivors  # `3` → `4` in a range, say: the check is weak, whatever the seeds
    failed = {f["seed"] for f in report.reference_failures}
    assert failed and failed <= {1, 2, 3} and all(f["status"] == "failed" for f in report.reference_failures)
    assert not any(r.likely_equivalent for r in report.survivors)  # nothing to compare them with


def test_mutants_beyond_the_budget_are_not_run_not_caught(box):
    slow = snippet(check="import time\ntime.sleep(0.4)\n" + WEAK)
    started = time.monotonic()
    report = box.run(check_strength(slow, box.sandbox, budget_seconds=1.5))
    assert time.monotonic() - started < 3
    not_run = [r for r in report.results if r.status == NOT_RUN]
    assert 0 < report.total_run < len(report.results) and not_run
    assert not any(r.caught for r in not_run) and not report.complete
    assert all(p.state == "untested" for p in report.positions if any(r.status == NOT_RUN for r in p.results))


# Codes as mutants might be: passing, failing the check, raising, exiting, hanging, leaving state
# behind for the next one, printing, allocating without end.
ODD_CODES = [
    "def f(x):\n    return x + 1\n",
    "def f(x):\n    return x - 1\n",
    "def f(x):\n    return x +\n",  # a syntax error
    "def f(x):\n    return undefined + x\n",
    "import sys\nsys.exit(3)\ndef f(x):\n    return x + 1\n",
    "def f(x):\n    while True:\n        pass\n",
    "import os\nos._exit(0)\n",
    "import torch\ntorch.set_grad_enabled(False)\nshared.append(1)\ndef f(x):\n    return x + 1\n",
    "print('x' * 100000)\ndef f(x):\n    return x + 1\n",
    "def f(x):\n    return [0] * (1 << 40)\n",
    "def f(x):\n    return x + 1\n",
]
ODD_CHECK = "import torch\nassert torch.is_grad_enabled() and shared == [1] * len(shared) and f(1) == 2\n"


def test_a_batch_of_mutants_gives_each_the_status_a_job_of_its_own_gives(box):
    """Many mutants per job is only a way to run them: a hang, an exit or a crash in a batch leaves
    the others' statuses as they are alone, and no mutant sees what the one before it left."""
    from app.snippets import strength
    from app.snippets.jobs import job_for

    odd = parse_snippet(
        snippet_text("def f(x):\n    return x + 1\n", ODD_CHECK).replace(
            "```python\n", "```python setup\nshared = []\n```\n\n```python\n", 1
        ),
        "odd",
    )
    todo = [SimpleNamespace(code=code) for code in ODD_CODES]
    seen = []

    async def run(job, steps=1):
        return await box.sandbox.run(job)

    batched = box.run(strength._statuses(odd, todo, run, SimpleNamespace(advance=seen.append)))
    alone = [box.run(box.sandbox.run(job_for(odd, code))).status for code in ODD_CODES]
    assert batched == alone
    assert alone[0] == alone[8] == alone[10] == "passed" and alone[1] == alone[7] == "failed"
    assert alone[5] == "timeout" and alone[9] == "memory" and alone[2:5] == ["error"] * 3
    assert sum(seen) >= 5  # those before the hang were reported by their batch
