"""The class-at-once benchmark, short: 60 learners of one class behind one address submit the Flash
Attention Forward drill within 3 s, and every one gets a verdict (a fixed queue of 32 refused 14–16
of them). The full run and its figures: bench/RESULTS.md."""

import pytest

from tests.helpers import run_python

pytestmark = pytest.mark.server


def test_a_class_of_sixty_submitting_at_once_all_get_their_verdict():
    out = run_python("bench/class_at_once.py", "--learners", "60", "--within", "3", "--settle", "0")
    assert out.returncode == 0, out.stderr[-2000:]
    row = next(line for line in out.stdout.splitlines() if line.startswith("| 60 |"))
    learners, verdicts, refused, other = (int(cell) for cell in row.strip("|").split("|")[:4])
    assert (verdicts, refused, other) == (60, 0, 0), row
