"""The course's jobs benchmark, short: one run of two bundled snippets' references in the sandbox,
each row read back with its times."""

import pytest

from tests.helpers import run_python

pytestmark = pytest.mark.server


def test_the_course_jobs_benchmark_times_each_snippets_reference():
    out = run_python("bench/course_jobs.py", "--runs", "1", "--snippets", "ex1-attention-memory,ex5-flash-backward")
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.strip("|").split("|") for line in out.stdout.splitlines() if line.startswith("| ex")]
    assert sorted(cells[0].strip() for cells in rows) == ["ex1-attention-memory", "ex5-flash-backward"]
    assert all(0 <= float(cell) for cells in rows for cell in cells[1:]), out.stdout
