"""What the fork server asks of the kernel's accounting, the same for cgroup v1 and v2.

One cgroup per slot (in every v1 hierarchy, or one in v2), made on first use and reused, since
slots are pooled. Counters are read as deltas from a baseline taken when a job process enters
its slot: v2 cannot reset them, and so neither version needs to.
"""

import os

from ..ending import kill_processes
from .files import read, remove_server_trees, write

MEMORY_HEADROOM = 32 << 20  # the job process's own pages, beyond what it may allocate
CPU_PERIOD_US = 100_000  # with a quota of one period per period: one CPU at most


def memory_limit(limits: dict) -> int:
    return int(limits["memory_bytes"]) + MEMORY_HEADROOM


class SlotCgroups:
    """enter / cpu_seconds / ran_out_of_memory / controllers / close, for pool.py and outside.py.
    A version says how a new slot is limited (`limit`), where its CPU time and OOM kills are
    counted (`cpu_total`, `oom_kills`), and may empty a reused slot first (`clear`)."""

    version = ""

    def __init__(self, bases: dict[str, str], limits: dict):
        self.bases, self.limits = bases, limits  # controller -> the server's tree in its hierarchy
        self.made: set[int] = set()
        self.cpu_before: dict[int, float] = {}
        self.oom_before: dict[int, int] = {}

    def directories(self, slot: int) -> list[str]:
        return sorted({f"{base}/slot-{slot}" for base in self.bases.values()})

    def directory(self, name: str, slot: int) -> str:
        return f"{self.bases[name]}/slot-{slot}"

    def enter(self, slot: int, pid: int) -> None:
        """Puts a fresh job process (before it runs any learner code) into its slot's cgroups."""
        if slot not in self.made:
            for directory in self.directories(slot):
                os.makedirs(directory, exist_ok=True)
            self.limit(slot)
            self.made.add(slot)
        self.clear(slot)
        self.cpu_before[slot] = self.cpu_total(slot)
        self.oom_before[slot] = self.oom_kills(slot)
        for directory in self.directories(slot):
            write(f"{directory}/cgroup.procs", pid)

    def cpu_seconds(self, slot: int) -> float:
        """CPU time of the slot's whole tree since its job process entered."""
        return self.cpu_total(slot) - self.cpu_before.get(slot, 0.0)

    def ran_out_of_memory(self, slot: int) -> bool:
        """Whether the kernel killed a process of this slot's job for memory."""
        return self.oom_kills(slot) > self.oom_before.get(slot, 0)

    def thread_ids(self, slot: int) -> list[int]:
        """Every thread in the slot's cgroup now."""
        return [int(t) for t in read(self.threads_file(slot)).split()]

    def controllers(self) -> dict[str, str]:
        return dict(self.bases)

    def close(self) -> None:
        remove_server_trees(list(self.bases.values()))

    # -- what each version says ------------------------------------------------------------
    def limit(self, slot: int) -> None:
        raise NotImplementedError

    def cpu_total(self, slot: int) -> float:
        raise NotImplementedError

    def oom_kills(self, slot: int) -> int:
        raise NotImplementedError

    def threads_file(self, slot: int) -> str:
        raise NotImplementedError

    def kill_tree(self, slot: int) -> None:
        """SIGKILL to every process in the slot's cgroup, each by pidfd, checked to be the
        slot's once pinned (v2 has the kernel do it at once: cgroup.kill)."""
        procs = self.procs_file(slot)
        kill_processes([int(p) for p in read(procs).split()], lambda pid: str(pid) in read(procs).split())

    def procs_file(self, slot: int) -> str:
        raise NotImplementedError

    def clear(self, slot: int) -> None:
        """Kills what an earlier job left in a reused slot. v1 has no cgroup.kill; there the job's
        pid namespace (or orphans.py's sweep) has already ended everything it started."""
