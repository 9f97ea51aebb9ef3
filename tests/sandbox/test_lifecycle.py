"""Starting, overload, the fork server dying, and shutting down; each test owns its sandbox."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.sandbox import Sandbox, SandboxBusy, SandboxUnavailable
from app.sandbox.status import descendants
from tests.sandbox.support import TEST_LIMITS, job

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
PASSING = job("x = 1", check="assert x == 1")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def _started(**kwargs) -> Sandbox:
    sandbox = Sandbox(TEST_LIMITS, **kwargs)
    await sandbox.start()
    return sandbox


def _with_sandbox(scenario, **kwargs):
    """Run `scenario(sandbox)` on a freshly started sandbox, closed afterwards whatever happens."""

    async def main():
        sandbox = await _started(**kwargs)
        try:
            return await scenario(sandbox)
        finally:
            await sandbox.close()

    return asyncio.run(main())


def test_busy_at_once_when_workers_and_queue_are_full():
    async def scenario(sandbox):
        slow = job("import time\ntime.sleep(0.5)")
        running = asyncio.ensure_future(sandbox.run(slow))
        queued = asyncio.ensure_future(sandbox.run(slow))
        await asyncio.sleep(0.05)
        began = time.monotonic()
        with pytest.raises(SandboxBusy):
            await sandbox.run(PASSING)
        assert time.monotonic() - began < 0.05
        assert [v.status for v in await asyncio.gather(running, queued)] == ["passed", "passed"]
        assert (await sandbox.run(PASSING)).status == "passed"  # capacity is back

    # One job at once (the budget would admit up to 5 per worker): one running, one waiting, full.
    _with_sandbox(scenario, workers=1, queue=1, jobs=1)


def test_restarted_after_the_fork_server_is_killed():
    async def scenario(sandbox):
        first = (await sandbox.status())["server_pid"]
        stale = list(sandbox.accounting()["controllers"].values())
        os.kill(first, signal.SIGKILL)
        await asyncio.sleep(0.1)
        assert (await sandbox.run(PASSING)).status == "passed"
        assert (await sandbox.status())["server_pid"] != first
        assert sandbox.protections()
        assert [path for path in stale if os.path.exists(path)] == []  # the new server removed them

    _with_sandbox(scenario, workers=2)


def test_job_retried_once_when_the_server_dies_under_it():
    async def scenario(sandbox):
        status = await sandbox.status()
        slow = asyncio.ensure_future(sandbox.run(job("import time\ntime.sleep(0.3)\nprint('done')")))
        await asyncio.sleep(0.1)
        os.kill(status["zygote_pid"], signal.SIGKILL)  # the server follows its zygote
        verdict = await slow
        assert (verdict.status, verdict.stdout) == ("passed", "done\n")
        assert not _alive(status["server_pid"]) and not _alive(status["zygote_pid"])

    _with_sandbox(scenario, workers=2)


def test_unavailable_when_the_server_cannot_start(tmp_path):
    async def scenario():
        sandbox = Sandbox(TEST_LIMITS, python=str(tmp_path / "no-python"))
        with pytest.raises(SandboxUnavailable):
            await sandbox.start()
        with pytest.raises(SandboxUnavailable):
            await sandbox.run(PASSING)

    asyncio.run(scenario())


def test_close_ends_the_server_and_every_job():
    async def scenario():
        sandbox = await _started(workers=2)
        status = await sandbox.status()
        running = asyncio.ensure_future(sandbox.run(job("import time\ntime.sleep(30)")))
        await asyncio.sleep(0.2)
        tree = descendants([status["server_pid"]])
        assert len(tree) >= 4  # server, zygote, ready and running job processes
        cgroups = list(sandbox.accounting()["controllers"].values())
        await sandbox.close()
        with pytest.raises((SandboxUnavailable, asyncio.CancelledError)):
            await asyncio.wait_for(running, 5)
        return tree, cgroups

    tree, cgroups = asyncio.run(scenario())
    time.sleep(0.2)
    assert [pid for pid in tree if _alive(pid)] == []
    assert [path for path in cgroups if os.path.exists(path)] == []  # the jobs' cgroups are removed too


def test_a_cancelled_run_stops_its_job():
    async def scenario(sandbox):
        abandoned = asyncio.ensure_future(sandbox.run(job("import time\ntime.sleep(30)")))
        await asyncio.sleep(0.3)
        abandoned.cancel()
        began = time.monotonic()
        assert (await sandbox.run(PASSING)).status == "passed"  # not stuck behind it
        assert time.monotonic() - began < 1.5
        status = await sandbox.status()
        assert status["running"] == 0 and status["pending"] == 0

    _with_sandbox(scenario, workers=1, queue=4)


def test_the_fork_server_loads_no_asyncio():
    """The fork server (and the zygote forked from it) imports its modules through app.sandbox
    without the web side's client: asyncio, ssl and their kin would cost it ~4 MiB."""
    probe = "import sys; from app.sandbox.server import main; print(sorted({'asyncio', 'ssl'} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-I", "-B", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {probe}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["[]"]
