"""The verdict before the reap: when a job's tree counts as past running code, and that the
fork server answers early only then, with every process the job started killed."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from app.sandbox.ending import all_exiting, exiting, kill_processes

pytestmark = pytest.mark.server

SPIN = "import time\nwhile True: time.sleep(0.01)"


def _spinner() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SPIN])


def test_a_live_process_and_a_live_thread_are_not_exiting():
    proc = _spinner()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not exiting(proc.pid)
        assert not exiting(thread.native_id)
        assert not exiting(os.getpid())
    finally:
        stop.set()
        thread.join()
        proc.kill()
        proc.wait()


def test_a_killed_process_is_exiting_before_it_is_reaped_and_a_gone_one_too():
    proc = _spinner()
    pid = proc.pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while not exiting(pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    assert exiting(pid)
    assert os.waitpid(pid, os.WNOHANG) != (0, 0) or exiting(pid)  # a zombie until reaped
    proc.wait()
    assert exiting(pid)  # gone


def test_a_thread_that_appears_between_two_reads_keeps_the_tree_running():
    proc = _spinner()
    try:
        dead = subprocess.Popen([sys.executable, "-c", ""])
        dead.wait()
        reads = iter([[dead.pid], [dead.pid, proc.pid]])
        assert not all_exiting(lambda: next(reads))
        assert all_exiting(lambda: [dead.pid])
        assert not all_exiting(lambda: [dead.pid, proc.pid])
    finally:
        proc.kill()
        proc.wait()


def test_only_processes_still_held_by_the_slot_are_killed():
    kept, killed = _spinner(), _spinner()
    try:
        kill_processes([kept.pid, killed.pid, 2**22 + 1], lambda pid: pid == killed.pid)
        assert killed.wait(5) == -signal.SIGKILL
        assert kept.poll() is None
    finally:
        kept.kill()
        kept.wait()


LEAVES_A_TREE = """
import os, threading, time
def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        spin()
    spin()
def answer():
    return 42
"""


def test_the_verdict_goes_out_before_the_reap_and_the_tree_is_gone_after(runner):
    """With cgroups (as root here) both verdicts go out before their reaps; without, at them.

    Early is best effort: on a loaded host the server may first be scheduled after the zygote
    has reported the reap, and then the reap answers. So a round may fall back, but within a
    few rounds one must be early for both, and every round's verdicts and cleanup must hold."""
    early = 2 if runner.sandbox.accounting()["cgroups"] else 0
    rounds = []
    for _ in range(5):
        before = runner.settled_status()["answered_before_reap"]
        honest = runner.run("def answer():\n    return 42", check="assert answer() == 42")
        hostile = runner.run(LEAVES_A_TREE, check="assert answer() == 42")
        assert honest.status == "passed", honest
        assert hostile.status == "passed", hostile
        assert runner.leftover_processes() == []
        rounds.append(runner.settled_status()["answered_before_reap"] - before)
        if rounds[-1] == early:
            break
    assert rounds[-1] == early, rounds
    assert all(0 <= n <= early for n in rounds), rounds
