"""The web benchmarks' load is what their tables say: a returning learner's submissions."""

import pytest

from tests.helpers import run_python

pytestmark = pytest.mark.server

# In a process of its own: bench.web_app sets the secret key its load signs with. One process for
# both questions: building the bench app is most of its cost.
BENCH_APP = """
from bench.web_app import LEARNER, LEARNERS, SCORED_BYTES, app
print(LEARNER == LEARNERS[0], *(app.state.identity.learner_from(c) for c in LEARNERS))
print(app.state.folder._thread.is_alive(), len(SCORED_BYTES["token"]) > 1000)
"""


@pytest.fixture(scope="module")
def bench_app_lines() -> list[str]:
    out = run_python("-c", BENCH_APP)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def test_the_bench_learners_cookies_are_signed_by_the_served_apps_key(bench_app_lines):
    first, *ids = bench_app_lines[-2].split()
    # None would be a cookie the server refuses: a new learner minted for every request
    assert first == "True" and len(set(ids)) == 64 and all(len(i) == 32 and i.isalnum() for i in ids)


def test_the_served_bench_app_keeps_the_background_work_of_a_served_app(bench_app_lines):
    # The twins' sizes are measured through a test client, whose lifespan ends by stopping the
    # class counters' folder: on the served app itself that left the folding out of every figure.
    assert bench_app_lines[-1].split() == ["True", "True"], bench_app_lines


def test_the_in_process_submission_benchmark_runs():
    out = run_python("bench/drill_cpu.py", "--requests", "8")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "| token |" in out.stdout and "| line |" in out.stdout


def test_the_caches_benchmark_lists_every_cache_of_the_app_and_what_it_saves():
    out = run_python("bench/caches.py", "--rounds", "1", "--repeats", "0")
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith("| `app.")]
    names = {row.split("`")[1] for row in rows}
    assert {"app.engine.tokens.candidate_spans", "app.web.zone._zones", "app.memory.versions.version_map"} <= names
    assert all(row.rstrip(" |").endswith(("yes", "no")) for row in rows), rows
