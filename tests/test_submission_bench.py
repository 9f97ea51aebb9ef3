"""The submission benchmarks run end to end, shortly: the writer alone on real attempts, and a
profile through a real uvicorn with py-spy (bench/RESULTS.md records their long runs)."""

import pytest

from bench.submission_profile import bodies, top
from bench.write_cpu import commit_floor_ms, cpu_ms_per_attempt
from tests.helpers import run_python

pytestmark = pytest.mark.server


def test_the_writer_benchmark_writes_batches_of_real_attempts_and_folds_them():
    writing, folding = cpu_ms_per_attempt(2, 3)
    assert writing > 0 and folding > 0


def test_the_writers_floor_commits_every_transaction_it_times():
    assert commit_floor_ms(5) > 0  # and it asserts that the 5 rows are stored


def test_a_short_profile_of_token_scored_submissions_names_the_writer(tmp_path):
    raw = tmp_path / "stacks.txt"
    out = run_python("bench/submission_profile.py", "--seconds", "2", "--raw", str(raw))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "web process CPU" in out.stdout and "Store.commit" in out.stdout
    assert "by thread: event loop" in out.stdout
    assert "HTTP floor (the same bodies to the static twin)" in out.stdout, out.stdout
    assert "| own % |" in top(raw) and len(bodies(3)) == 3
