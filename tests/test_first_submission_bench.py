"""The first-submission benchmark, short: two simulated days on a real server under libfaketime,
every submission's phases read back from the server's log."""

import os

import pytest

from app.observability.submissions import PHASES
from tests.faketime_server import FAKETIME
from tests.helpers import run_python

pytestmark = pytest.mark.server


def test_the_first_submission_benchmark_reads_every_phase_from_the_log():
    if not FAKETIME.exists():
        if os.environ.get("CI"):
            pytest.fail("this benchmark needs Debian's faketime; .ci/run installs it")
        pytest.skip("libfaketime missing (apt-get install faketime)")
    out = run_python("bench/first_submission.py", "--days", "2", "--per-day", "2")
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {line.split("|")[1].strip(): line for line in out.stdout.splitlines() if line.startswith("| ")}
    counts = {
        name: int(rows[name].split("|")[2]) for name in ("cold server's first", "first of a later day", "the others")
    }
    assert counts == {"cold server's first": 1, "first of a later day": 1, "the others": 2}, out.stdout
    cells = rows["the others"].strip("|").split("|")[2 : 2 + len(PHASES)]
    assert all(float(cell) >= 0 for cell in cells), rows["the others"]
