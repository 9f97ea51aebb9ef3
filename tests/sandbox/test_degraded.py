"""Hosts with fewer isolation features: the sandbox still works, contains what it can, and
reports exactly which protections are active.

A user without capabilities is simulated with setpriv (uid 0 with an empty capability set;
with CAP_SETFCAP kept it may still map itself into a user namespace, as a normal user can).
"""

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.sandbox import Sandbox
from tests.sandbox.corpus import context_setup, load_corpus
from tests.sandbox.support import TEST_LIMITS, Runner

pytestmark = pytest.mark.server

CASES = {name: source for name, source, _ in load_corpus()}
# Where the cases' fixed /var/tmp/codecloze-pwned is written here: a degraded sandbox lets some jobs
# write it, and another file's test, running at once, checks that nobody did.
PWNED_HERE = Path(f"/var/tmp/codecloze-degraded-pwned-{os.getpid()}")
NAMESPACES = ("pid_namespace", "net_namespace", "ipc_namespace", "mount_namespace")
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="simulating a user without capabilities needs root and setpriv",
)


@pytest.fixture
def degraded(tmp_path, data_dir):
    """Runs a scenario against a sandbox built with the given options; closes it after."""
    loop = asyncio.new_event_loop()
    runners = []

    def start(**options) -> Runner:
        runner = Runner(loop, Sandbox(TEST_LIMITS, workers=2, data_dirs=(data_dir,), **options), data_dir)
        runner(runner.sandbox.start())
        runners.append(runner)
        return runner

    yield start
    for runner in runners:
        runner(runner.sandbox.close())
    loop.close()


def _without_capabilities(tmp_path: Path, keep: str = "") -> str:
    wrapper = tmp_path / f"python-nocaps{keep}"
    bounding = "-all" + (f",+{keep}" if keep else "")
    wrapper.write_text(f'#!/bin/sh\nexec setpriv --bounding-set={bounding} --inh-caps=-all -- {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def _contained(runner: Runner, *cases: str) -> None:
    """The hostile cases end, the server survives them, and nothing they started lives on."""
    names = {
        "DATA_FILE": str(runner.data_dir / "secret.txt"),
        "WEB_PORT": 9,
        "OUTSIDE_FILE": "/nonexistent/x",
        "HOST_TMP_FILE": "/nonexistent/y",
        "CANARY_DIR": "/nonexistent/z",
    }
    server = runner.settled_status()["server_pid"]
    for case in cases:
        source = CASES[case].replace("/var/tmp/codecloze-pwned", str(PWNED_HERE))
        verdict = runner.run(source, setup=context_setup(**names))
        assert verdict.status in ("passed", "error", "timeout", "memory"), (case, verdict)
        assert runner.run("x = 1", check="assert x == 1").status == "passed"
        assert runner.settled_status()["server_pid"] == server
        assert runner.leftover_processes() == [], case


def test_without_namespaces(degraded):
    runner = degraded(namespaces=False)
    claims = runner.sandbox.protections()
    assert not any(claims[name] for name in NAMESPACES + ("readonly_fs", "private_tmp"))
    assert claims["unprivileged_uid"] and claims["seccomp"] and claims["other_processes_unreachable"]
    _contained(runner, "kill_parent", "double_fork_daemon", "os_system_answer", "fork_and_allocate")
    leftover = runner.run("open('/var/tmp/codecloze-degraded', 'w').write('x')")
    assert leftover.status == "passed"  # no read-only view here ...
    runner.settled_status()
    assert not Path("/var/tmp/codecloze-degraded").exists()  # ... but its files are swept


@needs_root
def test_user_without_capabilities_gets_a_user_namespace(degraded, tmp_path):
    runner = degraded(python=_without_capabilities(tmp_path, keep="setfcap"))
    claims = runner.sandbox.protections()
    assert all(claims[name] for name in NAMESPACES + ("readonly_fs", "private_tmp", "hidden_data_dirs"))
    assert not claims["unprivileged_uid"]  # the job runs as the web app's own user
    _contained(runner, "kill_parent", "double_fork_daemon", "os_system_answer", "read_data_dir")


@needs_root
def test_user_without_any_namespace_cannot_touch_other_processes(degraded, tmp_path):
    bystander = subprocess.Popen(["sleep", "60"])  # same uid as the jobs, outside the sandbox
    try:
        runner = degraded(python=_without_capabilities(tmp_path))
        claims = runner.sandbox.protections()
        assert not any(claims[name] for name in NAMESPACES + ("unprivileged_uid",))
        assert claims["other_processes_unreachable"] and claims["seccomp"] and claims["rlimits"]
        _contained(runner, "kill_parent", "os_system_answer", "double_fork_daemon", "fork_server_socket")
        assert bystander.poll() is None
        # Without a read-only view or a uid of its own, a job writes wherever the web app's
        # user may, and nothing tells its files apart: as reported, "readonly_fs" is false.
        assert not claims["readonly_fs"] and PWNED_HERE.exists()
    finally:
        PWNED_HERE.unlink(missing_ok=True)
        bystander.kill()
        bystander.wait()


def test_without_cgroups_process_trees_are_polled_and_reported_so(degraded):
    runner = degraded(cgroups=False)
    claims, accounting = runner.sandbox.protections(), runner.sandbox.accounting()
    assert not any(claims[f"cgroup_{name}"] for name in ("memory", "pids", "cpu"))
    assert accounting["tree_limits"] == "polling" and accounting["cgroups"] is None
    assert set(accounting["not_used"]) == {"v2", "v1"}  # both turned off, and said so
    assert claims["process_tree_limits"]
    _contained(runner, "fork_and_allocate", "fork_bomb")
    assert runner.settled_status()["answered_before_reap"] == 0  # no thread list: verdicts wait for the reap


@needs_root
def test_with_cgroups_the_kernel_counts_the_whole_tree(runner):
    accounting, claims = runner.sandbox.accounting(), runner.sandbox.protections()
    assert accounting["cgroups"] in ("v2", "v1") and accounting["tree_limits"] == "cgroup"
    assert claims["cgroup_memory"] and claims["cgroup_pids"] and claims["cgroup_cpu"]
    if accounting["cgroups"] == "v1":  # as here, where the v2 hierarchy lacks the controllers
        assert set(accounting["controllers"]) == {"memory", "pids", "cpu", "cpuacct"}
        assert accounting["not_used"]["v2"]  # with the reason (test_cgroups_v2.py checks it here)
    else:
        assert set(accounting["controllers"]) == {"memory", "pids", "cpu"} and not accounting["not_used"]
    for directory in accounting["controllers"].values():
        assert Path(directory).is_dir()
