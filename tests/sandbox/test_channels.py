"""No channel between concurrent jobs: what one job leaves on any shared object, a job running
at the same time cannot find (file locks, paths, unix sockets, SysV/POSIX IPC, hostname)."""

import asyncio

import pytest

from tests.sandbox.channels import NOTHING_LEARNED, RECEIVER, SENDER
from tests.sandbox.support import job

pytestmark = pytest.mark.server


async def _side_by_side(sandbox, sender: str, receiver: str):
    sending = asyncio.ensure_future(sandbox.run(job(sender, setup="SECONDS = 1.5"), owner="sender"))
    await asyncio.sleep(0.5)  # the sender has left its marks and is holding them
    received = await sandbox.run(job(receiver, check=NOTHING_LEARNED), owner="receiver")
    return await sending, received


def test_a_job_learns_nothing_from_a_concurrent_one(runner):
    sent, received = runner(_side_by_side(runner.sandbox, SENDER, RECEIVER))
    assert sent.status == "passed", sent
    assert (received.status, received.stdout) == ("passed", "[]\n"), received


def test_the_receiver_sees_marks_left_in_its_own_job(runner):
    """The receiver's checks work: a mark the same job left (in its own /tmp) is found."""
    verdict = runner.run("open('/tmp/codecloze-channel', 'w').write('x')\n" + RECEIVER)
    assert verdict.stdout == "['file in /tmp']\n", verdict
