"""cgroup v2 accounting: detection on this host, the v2 mechanics on the real cgroup2 mount,
and the limit files' protocol against a temporary directory shaped like cgroupfs.

This host's v2 hierarchy offers only `hugetlb` (memory, pids and cpu are bound to v1), so
the sandbox uses v1 here and the full v2 limits cannot run. What v2 does without those
controllers runs on the real kernel, through the same V2Cgroups code, with hugetlb standing in
for them: the no-internal-processes rule (a real EBUSY) and the move into a leaf, the server's
tree and its slots, real processes entered via cgroup.procs, CPU from cpu.stat, the populated
state, cgroup.kill and removal. The limit files of memory, pids and cpu are checked in a fake
cgroupfs (regular files: what is written and parsed, not what the kernel makes of it).
"""

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.sandbox import cgroups
from app.sandbox.cgroups import discovery
from app.sandbox.cgroups.files import kill, populated, read, write
from app.sandbox.cgroups.v2 import V2Cgroups

# The tests switch a controller on and off at the real cgroup root: one xdist worker runs them all.
pytestmark = pytest.mark.server

LIMITS = {"memory_bytes": 256 << 20, "max_processes": 16}
STAND_IN = ("hugetlb",)  # the one controller this host's v2 hierarchy has


def _v2_mount() -> str | None:
    return next((point for kind, _, point, _ in discovery._mounts() if kind == "cgroup2"), None)


def _offered(directory: str) -> list[str]:
    return read(f"{directory}/cgroup.controllers").split()


# -- detection on this host -------------------------------------------------------------------


def test_v2_is_chosen_only_where_it_offers_memory_pids_and_cpu():
    mount = _v2_mount()
    directory, why = discovery.v2_directory()
    chosen, not_used = cgroups.open_cgroups(LIMITS)
    try:
        if mount is not None and {"memory", "pids", "cpu"} <= set(_offered(mount)):
            assert chosen is not None and chosen.version == "v2"
        else:  # this host: the unified mount has hugetlb only
            assert directory is None and "lacks memory, pids, cpu" in why
            assert not_used["v2"] == why
            assert chosen is not None and chosen.version == "v1"
            assert set(chosen.controllers()) == {"memory", "pids", "cpu", "cpuacct"}
            assert cgroups.protections(chosen) == {"cgroup_memory": True, "cgroup_pids": True, "cgroup_cpu": True}
    finally:
        if chosen is not None:
            chosen.close()
    assert chosen is None or not any(os.path.exists(path) for path in chosen.controllers().values())


def test_turned_off_means_polling_with_both_versions_said_so():
    chosen, not_used = cgroups.open_cgroups(LIMITS, enabled=False)
    assert chosen is None and set(not_used) == {"v2", "v1"}
    assert cgroups.accounting(chosen, not_used)["tree_limits"] == "polling"
    assert cgroups.protections(chosen) == {"cgroup_memory": False, "cgroup_pids": False, "cgroup_cpu": False}


def test_a_cgroup_path_is_found_under_a_mount_of_part_of_the_hierarchy():
    assert discovery._directory("/", "/sys/fs/cgroup", "/") == "/sys/fs/cgroup"
    assert discovery._directory("/", "/sys/fs/cgroup/", "/a/b/") == "/sys/fs/cgroup/a/b"
    assert discovery._directory("/a", "/mnt", "/a/b") == "/mnt/b"  # a bind mount of /a
    assert discovery._directory("/a", "/mnt", "/ab") is None  # not below it, whatever the prefix
    assert discovery._directory("/a", "/mnt", "/x") is None


# -- the v2 mechanics on the real cgroup2 mount -------------------------------------------------


def _remove_all(path: str) -> None:
    kill(path)
    deadline = time.monotonic() + 3
    while os.path.isdir(path) and time.monotonic() < deadline:
        for below, _, _ in sorted(os.walk(path), key=lambda w: -len(w[0])):
            try:
                os.rmdir(below)
            except OSError:
                time.sleep(0.01)


@pytest.fixture
def real_v2():
    """A cgroup of the test's own at the root of the real cgroup2 mount, offered hugetlb (enabled
    in the root's subtree_control for the test if it was not, and disabled again after)."""
    mount = _v2_mount()
    if os.geteuid() != 0 or mount is None or "hugetlb" not in _offered(mount):
        pytest.skip("needs root and a cgroup2 mount offering hugetlb")
    control = f"{mount}/cgroup.subtree_control"
    added = "hugetlb" not in read(control).split()
    if added:
        write(control, "+hugetlb")
    directory = f"{mount}/cgroup2-test-{os.getpid()}"
    os.mkdir(directory)
    try:
        yield directory
    finally:
        _remove_all(directory)
        if added:
            write(control, "-hugetlb")


def _sleeper(into: str | None = None) -> subprocess.Popen:
    proc = subprocess.Popen(["sleep", "60"])
    if into is not None:
        write(f"{into}/cgroup.procs", proc.pid)
    return proc


def _cgroup_of(pid: int) -> str:
    return next(line[3:] for line in read(f"/proc/{pid}/cgroup").splitlines() if line.startswith("0::"))


def test_enabling_controllers_moves_the_cgroups_processes_into_a_leaf_first(real_v2):
    app = _sleeper(into=real_v2)  # the cgroup the app runs in holds a process ...
    try:
        with pytest.raises(OSError) as refused:  # ... so the kernel refuses controllers for children
            write(f"{real_v2}/cgroup.subtree_control", "+hugetlb")
        assert refused.value.errno == errno.EBUSY
        pool = V2Cgroups.open(real_v2, LIMITS, workers=2, controllers=STAND_IN)
        name = os.path.basename(real_v2)
        assert _cgroup_of(app.pid) == f"/{name}/{discovery.LEAF}"
        assert read(f"{real_v2}/cgroup.subtree_control").split() == ["hugetlb"]
        parent = pool.controllers()["hugetlb"]
        assert parent == f"{real_v2}/codecloze-{os.getpid()}"
        assert read(f"{parent}/cgroup.subtree_control").split() == ["hugetlb"]
        job = _sleeper()
        pool.enter(0, job.pid)
        assert _cgroup_of(job.pid) == f"/{name}/codecloze-{os.getpid()}/slot-0"
        assert "hugetlb" in _offered(f"{parent}/slot-0")  # the controller reached the slot
        pool.close()
        assert job.wait(5) == -9 and not os.path.exists(parent)
        assert app.poll() is None  # the leaf is the app's: neither killed nor removed
    finally:
        app.kill()
        app.wait()


TREE = """
import os, sys, time
sys.stdin.readline()
for _ in range(3):
    if os.fork() == 0:
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        time.sleep(60)
        os._exit(0)
print("forked", flush=True)
time.sleep(60)
"""


def _gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not os.path.exists(f"/proc/{pid}") or "State:\tZ" in read(f"/proc/{pid}/status"):
            return True
        time.sleep(0.02)
    return False


def test_a_real_process_tree_is_counted_then_killed_whole_and_removed(real_v2):
    pool = V2Cgroups.open(real_v2, LIMITS, workers=1, controllers=STAND_IN)
    slot = f"{pool.controllers()['hugetlb']}/slot-0"
    job = subprocess.Popen([sys.executable, "-c", TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    after = None
    try:
        pool.enter(0, job.pid)  # before it forks: its children are born in the slot
        assert populated(slot)
        job.stdin.write("\n")
        job.stdin.flush()
        assert job.stdout.readline() == "forked\n"
        pids = [int(p) for p in read(f"{slot}/cgroup.procs").split()]
        assert job.pid in pids and len(pids) == 4
        deadline = time.monotonic() + 10
        while pool.cpu_seconds(0) < 0.85 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert 0.85 <= pool.cpu_seconds(0) < 5  # 3 children x 0.3 s, counted over the tree
        after = _sleeper()
        pool.enter(0, after.pid)  # a new job in the same slot: what was left is killed first
        assert job.wait(5) == -9 and all(_gone(pid) for pid in pids)
        assert pool.cpu_seconds(0) < 0.1  # counted from this job's entry, not the slot's
        pool.close()
        assert after.wait(5) == -9 and not os.path.exists(slot)
    finally:
        for proc in (job, after):
            if proc is not None:
                proc.kill()
                proc.wait()


def test_stale_trees_of_dead_servers_are_killed_and_removed(real_v2):
    dead = subprocess.Popen(["true"])
    dead.wait()
    assert not os.path.exists(f"/proc/{dead.pid}")
    stale = f"{real_v2}/codecloze-{dead.pid}"
    os.makedirs(f"{stale}/slot-3")
    left = _sleeper(into=f"{stale}/slot-3")  # a job process that outlived its server
    other = Path(real_v2, "codecloze-notapid")
    other.mkdir()
    pool = V2Cgroups.open(real_v2, LIMITS, controllers=STAND_IN)
    try:
        assert left.wait(5) == -9 and not os.path.exists(stale)
        assert other.is_dir()  # only codecloze-<pid of a dead process> trees are taken as stale
    finally:
        pool.close()
        left.kill()
        left.wait()


# -- the limit files, in a fake cgroupfs --------------------------------------------------------


def _files(directory: Path, contents: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in contents.items():
        (directory / name).write_text(text)


CPU_STAT = "usage_usec {}\nuser_usec 1\nsystem_usec 1\n"
MEMORY_EVENTS = "low 0\nhigh 0\nmax 2\noom 1\noom_kill {}\noom_group_kill 0\n"


@pytest.fixture
def fake_cgroupfs(tmp_path):
    """NOT the kernel: a temporary directory shaped like cgroupfs with the files the kernel
    would make (the app's cgroup offering memory, pids and cpu; the server's tree; slot 0)."""

    def make(swap: bool = True) -> Path:
        app = tmp_path / "fake-cgroupfs" / "app"
        _files(app, {"cgroup.controllers": "cpu memory pids\n", "cgroup.subtree_control": "", "cgroup.procs": ""})
        parent = app / f"codecloze-{os.getpid()}"
        _files(parent, {"cgroup.controllers": "cpu memory pids\n", "cgroup.subtree_control": "", "cpu.weight": ""})
        _files(
            parent / "slot-0",
            {
                "cgroup.procs": "",
                "cgroup.events": "populated 0\nfrozen 0\n",
                "memory.max": "",
                "memory.oom.group": "",
                "pids.max": "",
                "cpu.max": "",
                "cpu.stat": CPU_STAT.format(5_000_000),
                "memory.events": MEMORY_EVENTS.format(1),
                **({"memory.swap.max": ""} if swap else {}),
            },
        )
        return app

    return make


@pytest.mark.parametrize(("workers", "weight"), [(3, "300"), (200, "10000")])
def test_fake_open_enables_the_controllers_and_weights_the_parent(fake_cgroupfs, workers, weight):
    app = fake_cgroupfs()
    pool = V2Cgroups.open(str(app), LIMITS, workers=workers)
    parent = app / f"codecloze-{os.getpid()}"
    assert pool.controllers() == {name: str(parent) for name in ("memory", "pids", "cpu")}
    assert (app / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (parent / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (parent / "cpu.weight").read_text() == weight  # v2's range ends at 10000


def test_fake_slot_limits_are_written_once_on_first_entry(fake_cgroupfs):
    slot = fake_cgroupfs() / f"codecloze-{os.getpid()}" / "slot-0"
    pool = V2Cgroups.open(str(slot.parent.parent), LIMITS)
    pool.enter(0, 4242)
    assert (slot / "memory.max").read_text() == str((256 << 20) + (32 << 20))  # same headroom as v1
    assert (slot / "memory.swap.max").read_text() == "0"
    assert (slot / "memory.oom.group").read_text() == "1"
    assert (slot / "pids.max").read_text() == "16"
    assert (slot / "cpu.max").read_text() == "100000 100000"
    assert (slot / "cgroup.procs").read_text() == "4242"


def test_fake_without_swap_accounting_no_swap_file_is_made(fake_cgroupfs):
    slot = fake_cgroupfs(swap=False) / f"codecloze-{os.getpid()}" / "slot-0"
    V2Cgroups.open(str(slot.parent.parent), LIMITS).enter(0, 4242)
    assert not (slot / "memory.swap.max").exists() and (slot / "memory.max").read_text()


def test_fake_cpu_and_oom_kills_are_counted_from_each_entry(fake_cgroupfs):
    slot = fake_cgroupfs() / f"codecloze-{os.getpid()}" / "slot-0"
    pool = V2Cgroups.open(str(slot.parent.parent), LIMITS)
    pool.enter(0, 4242)
    assert pool.cpu_seconds(0) == 0 and not pool.ran_out_of_memory(0)
    (slot / "cpu.stat").write_text(CPU_STAT.format(7_500_000))
    (slot / "memory.events").write_text(MEMORY_EVENTS.format(2))
    assert pool.cpu_seconds(0) == pytest.approx(2.5) and pool.ran_out_of_memory(0)
    pool.enter(0, 4343)  # the next job in this slot starts from the counters as they stand
    assert pool.cpu_seconds(0) == 0 and not pool.ran_out_of_memory(0)
