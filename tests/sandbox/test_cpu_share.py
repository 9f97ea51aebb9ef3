"""Concurrent jobs get fair CPU: busy children in new sessions cannot starve another job, and
a job's CPU time is counted over its whole process tree."""

import asyncio

import pytest

from app.sandbox import Limits, Sandbox
from tests.sandbox.corpus import load_corpus
from tests.sandbox.support import job

pytestmark = pytest.mark.server

HOSTILE = dict((name, source) for name, source, _ in load_corpus())["busy_children_new_sessions"]
HONEST = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.8:\n    pass\nx = 1"


@pytest.fixture
def sandbox_with(event_loop_for_sandbox):
    started = []

    def start(limits: Limits) -> Sandbox:
        sandbox = Sandbox(limits, workers=2)
        event_loop_for_sandbox.run_until_complete(sandbox.start())
        started.append(sandbox)
        return sandbox

    yield start
    for sandbox in started:
        event_loop_for_sandbox.run_until_complete(sandbox.close())


async def _honest_beside_hostile(sandbox):
    hostile = asyncio.ensure_future(sandbox.run(job(HOSTILE.replace("range(6)", "range(15)")), owner="hostile"))
    await asyncio.sleep(0.3)  # its children are spinning by now
    honest = await sandbox.run(job(HONEST, check="assert x == 1"), owner="honest")
    return honest, await hostile


def test_an_honest_job_keeps_its_cpu_beside_a_job_of_busy_children(sandbox_with, event_loop_for_sandbox):
    """0.8 s of CPU within a 3 s wall limit. Were the hostile job's 16 processes and the honest
    one equals on two cores, the honest job would get an eighth of a core and time out."""
    sandbox = sandbox_with(Limits(cpu_seconds=2, wall_seconds=3, memory_bytes=256 << 20))
    honest, hostile = event_loop_for_sandbox.run_until_complete(_honest_beside_hostile(sandbox))
    assert honest.status == "passed", honest
    assert hostile.status == "timeout", hostile


def test_cpu_time_is_counted_over_the_whole_tree(sandbox_with, event_loop_for_sandbox):
    sandbox = sandbox_with(Limits(cpu_seconds=1, wall_seconds=8, memory_bytes=256 << 20))
    verdict = event_loop_for_sandbox.run_until_complete(sandbox.run(job(HOSTILE.replace("range(6)", "range(2)"))))
    assert verdict.status == "timeout" and "together" in verdict.message, verdict
    assert verdict.seconds < 6  # one CPU at most for the tree: about 1.25 s, more on a busy host
