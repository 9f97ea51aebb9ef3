"""`python -m app.snippets check`: compiler-style lines and exit codes, never a traceback;
and the validation rules it shares with uploads."""

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.sandbox import SandboxBusy, Verdict
from app.settings import PROJECT_DIR
from app.snippets.validate import validate

pytestmark = pytest.mark.server

CODE = "import math\n\ndef hypot(a, b):\n    return math.sqrt(a * a + b * b)\n"
STRONG = "assert abs(hypot(3, 4) - 5) < 1e-9\nassert abs(hypot(5, 12) - 13) < 1e-9, 'hypot(5, 12) should be 13'\n"
WRONG = "assert hypot(0, 0) == 0\nassert hypot(1, 1) == 2, 'hypot(1, 1) should be 2'\n"
WEAK = "assert callable(hypot)\n"


def snippet_text(check: str, code: str = CODE, level: str = "1") -> str:
    return f"---\ntitle: t\nsummary: s\nlevel: {level}\n---\n\n```python\n{code}```\n\n```python check\n{check}```\n"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    texts = {
        "good.md": snippet_text(STRONG),
        "wrong.md": snippet_text(WRONG),
        "weak.md": snippet_text(WEAK),
        "bad.md": snippet_text("assert True\n", code="def f(x):\n    return x +\n", level="9"),
        "_index.md": "# Home\n",
    }
    paths = {name: tmp_path / name for name in [*texts, "binary.md", "latin1.md"]}
    for name, text in texts.items():
        paths[name].write_text(text, encoding="utf-8")
    paths["binary.md"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    paths["latin1.md"].write_bytes(snippet_text(STRONG).replace("title: t", "title: café").encode("latin-1"))
    return paths


def cli(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "app.snippets", *map(str, args)],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    # A traceback of the CLI's own would pass through its main(); the sandbox's fork server shares
    # stderr, so only the CLI's frames are looked for there.
    assert "Traceback" not in done.stdout and "app/snippets/" not in done.stderr
    return done


def test_a_good_file_is_ok(files):
    done = cli("check", "--no-run", files["good.md"])
    assert (done.returncode, done.stdout) == (0, f"{files['good.md']}: ok\n")


def test_format_problems_come_one_per_line_with_the_file_line(files):
    bad = files["bad.md"]
    done = cli("check", "--no-run", bad)
    assert done.returncode == 1
    # each problem: `file:line[:column]: message`, then that file line itself, indented
    lines = done.stdout.splitlines()
    problems, texts = lines[0::2], lines[1::2]
    assert all(line.startswith(f"{bad}:") for line in problems) and len(lines) == 4
    assert problems[0].startswith(f"{bad}:4: ")  # the level, at its own front matter line
    number = line_of(bad.read_text(), "return x +")
    assert re.match(rf"{re.escape(str(bad))}:{number}:\d+: ", problems[1])
    assert texts == ["    level: 9", "    " + bad.read_text().split("\n")[number - 1]]


def test_unreadable_inputs_get_one_clear_line_each(files, tmp_path):
    names = [files["binary.md"], files["latin1.md"], tmp_path / "missing.md", tmp_path]
    done = cli("check", "--no-run", *names, files["good.md"])
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [str(n) for n in [*names, files["good.md"]]]
    assert lines[1].startswith(f"{files['latin1.md']}:{line_of(snippet_text(STRONG), 'title')}: ")
    assert "no such file" in lines[2] and "directory" in lines[3] and lines[4].endswith(": ok")


def test_files_starting_with_underscore_are_skipped(files):
    done = cli("check", "--no-run", files["_index.md"], files["good.md"])
    assert done.returncode == 0
    assert (
        done.stdout.splitlines()[0]
        == f"{files['_index.md']}: skipped (files whose name starts with '_' are not snippets)"
    )


@pytest.mark.parametrize(
    "args", [[], ["check"], ["check", "--no-run", "--strength", "x.md"], ["check", "--bogus", "x.md"], ["lint", "x.md"]]
)
def test_usage_errors_exit_2(args):
    done = cli(*args)
    assert done.returncode == 2 and done.stdout == "" and "usage:" in done.stderr


def test_runs_the_reference_and_measures_the_check(files):
    done = cli("check", "--strength", "--per-position", "1", files["good.md"], files["weak.md"], files["wrong.md"])
    assert done.returncode == 1
    assert "sandbox" in done.stderr or "plain python" in done.stderr
    out = done.stdout.splitlines()
    weak, wrong = str(files["weak.md"]), str(files["wrong.md"])
    assert out[0] == f"{files['good.md']}: ok"
    good = re.escape(str(files["good.md"]))
    summary = rf"{good}: check strength 100%: (\d+) of \1 mutants caught.* positions: \d+ caught, 0 weak, .*"
    assert re.fullmatch(summary, out[1])
    # Every position of the code, by file line and column, with its state and the line's text.
    positions = [line for line in out if re.match(rf"{good}:\d+:\d+: (caught|weak|blind|untested) ", line)]
    assert positions and all(re.fullmatch(rf"{good}:\d+:\d+: \w+ '.+': .+", line) for line in positions)
    survivors = [line for line in out if line.startswith(weak + ":") and " survives: " in line]
    first, last = line_of(snippet_text(WEAK), "import math"), line_of(snippet_text(WEAK), "return math.sqrt")
    assert survivors and all(first <= int(line.split(":")[1]) <= last for line in survivors)
    assert re.fullmatch(rf"{re.escape(weak)}:\d+:\d+: mutant '.+' → '.+' survives: .+", survivors[0])
    assert out[-2].startswith(
        f"{wrong}:{line_of(snippet_text(WRONG), 'hypot(1, 1) == 2')}:8: "
    )  # the failing comparison, column 8
    assert "hypot(1, 1) should be 2" in out[-2]
    assert out[-1] == "    assert hypot(1, 1) == 2, 'hypot(1, 1) should be 2'"  # the failing file line itself


def test_plain_python_runner(files):
    done = cli("check", "--runner", "python", files["good.md"], files["wrong.md"])
    assert done.returncode == 1 and "plain python" in done.stderr
    good, wrong, text = done.stdout.splitlines()
    assert good == f"{files['good.md']}: ok" and text.strip().startswith("assert hypot(1, 1) == 2")
    assert wrong.startswith(f"{files['wrong.md']}:{line_of(snippet_text(WRONG), 'hypot(1, 1) == 2')}: ")
    assert "验证未通过" in wrong and "hypot(1, 1) should be 2" in wrong


# -- the rules themselves, with a stand-in sandbox ------------------------------------------


class Stub:
    """Answers every run with one verdict, or raises one exception."""

    def __init__(self, outcome):
        self.outcome = outcome

    async def run(self, job):
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def test_a_taken_id_is_a_problem_unless_editing():
    text = snippet_text(STRONG)
    report = asyncio.run(validate(text, "good", taken=lambda i: i == "good"))
    assert not report.ok and report.snippet is not None and len(report.problems) == 1
    assert asyncio.run(validate(text, "good", taken=lambda i: True, editing=True)).ok


def test_a_failing_check_is_placed_on_its_file_line():
    text = snippet_text(WRONG)
    verdict = Verdict("failed", "hypot(1, 1) should be 2", part="check", line=2)
    report = asyncio.run(validate(text.encode(), "wrong", sandbox=Stub(verdict)))
    [problem] = report.problems
    assert report.verdict == verdict
    assert problem.line == line_of(text, "hypot(1, 1) == 2")
    assert "验证未通过" in problem.message and "hypot(1, 1) should be 2" in problem.message


def test_a_timeout_and_a_busy_sandbox_are_problems():
    text = snippet_text(STRONG)
    timeout = Verdict("timeout", "CPU time limit (5 s) reached", part="code", line=4)
    [problem] = asyncio.run(validate(text, "good", sandbox=Stub(timeout))).problems
    assert "5 s" in problem.message and problem.line == line_of(text, "return math.sqrt")
    busy = asyncio.run(validate(text, "good", sandbox=Stub(SandboxBusy("full"))))
    assert len(busy.problems) == 1 and busy.verdict is None and busy.snippet is not None


def test_format_problems_skip_the_run_and_come_all_at_once():
    report = asyncio.run(
        validate(
            snippet_text("", code="def f(x) return x\n", level="7"), "BAD id", sandbox=Stub(None), taken=lambda i: True
        )
    )
    assert report.snippet is None and report.verdict is None and len(report.problems) >= 4


def test_an_unclosed_bracket_is_a_problem_not_a_crash():
    text = snippet_text("assert True\n", code="def f(x):\n    return max(x,\n")
    [problem] = asyncio.run(validate(text, "unclosed")).problems
    assert problem.line == line_of(text, "return max(x,")
