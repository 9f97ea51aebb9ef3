"""The web benchmarks' load is what their tables say: a returning learner's submissions."""

import subprocess
import sys

from app.settings import PROJECT_DIR

# In a process of its own: bench.web_app sets the secret key its load signs with.
RETURNING = """
from bench.web_app import LEARNER, app
print(app.state.identity.learner_from(LEARNER))
"""


def test_the_bench_learners_cookie_is_signed_by_the_served_apps_key():
    out = subprocess.run(
        [sys.executable, "-c", RETURNING], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "b" * 32  # not None: the server does not mint a new learner per request


def test_the_in_process_submission_benchmark_runs():
    out = subprocess.run(
        [sys.executable, "bench/drill_cpu.py", "--requests", "8"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| token |" in out.stdout and "| line |" in out.stdout
