"""cgroup v2: one hierarchy, `codecloze-<server pid>` with a child cgroup per slot.

The parent enables memory, pids and cpu for its slots (its cpu.weight is `workers` ordinary
processes); each slot has memory.max (shmem, tmpfs and memfd pages are charged to it as well),
no swap, the whole slot killed together on OOM, pids.max, and cpu.max of one CPU. CPU time is
read from cpu.stat and OOM kills from memory.events, as deltas (v2 resets neither).

The no-internal-processes rule: a cgroup other than the root may not both hold processes and
enable controllers for children (EBUSY). The server runs in the cgroup the app was started in,
so where that holds processes, they are all moved into a leaf child `codecloze-leaf` first, as
container runtimes do. They stay inside the same cgroup's subtree, so every limit and account
that applies to it still applies to them. It is done only when the kernel refuses: the root
(which the rule exempts) and a cgroup whose controllers are on already are left as they are.
Falling back to v1 or to polling instead would lose shmem/tmpfs accounting on v2-only hosts,
where this is the usual case.
"""

import errno
import os
import time

from .discovery import LEAF, V2_CONTROLLERS
from .files import PREFIX, kill, populated, read, remove_server_trees, remove_stale, stat, write
from .slots import CPU_PERIOD_US, SlotCgroups, memory_limit

CPU_WEIGHT = 100  # v2's default: one ordinary process's weight
CPU_WEIGHT_MAX = 10_000
ENABLE_ATTEMPTS = 5  # processes may be forked into the cgroup while its processes are moved


def _move_processes(source: str, target: str) -> None:
    os.makedirs(target, exist_ok=True)
    for pid in read(f"{source}/cgroup.procs").split():
        try:
            write(f"{target}/cgroup.procs", pid)
        except ProcessLookupError:
            pass  # exited meanwhile


def enable(directory: str, controllers) -> None:
    """Enables the controllers for directory's children, moving its processes into a leaf
    child first where the no-internal-processes rule refuses (see above)."""
    request = " ".join(f"+{name}" for name in controllers)
    for _ in range(ENABLE_ATTEMPTS):
        try:
            write(f"{directory}/cgroup.subtree_control", request)
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise
        _move_processes(directory, f"{directory}/{LEAF}")
    write(f"{directory}/cgroup.subtree_control", request)


class V2Cgroups(SlotCgroups):
    version = "v2"
    CLEAR_SECONDS = 1.0

    @classmethod
    def open(cls, directory: str, limits: dict, workers: int = 1, controllers=V2_CONTROLLERS) -> "V2Cgroups":
        """directory: the cgroup this server runs in (discovery.v2_directory). `controllers` is
        always memory, pids and cpu for the sandbox; tests on hosts without them pass others."""
        remove_stale(directory)
        enable(directory, controllers)
        parent = f"{directory}/{PREFIX}{os.getpid()}"
        os.makedirs(parent, exist_ok=True)
        try:
            enable(parent, controllers)  # holds no processes itself, only its slots do
            if "cpu" in controllers:
                write(f"{parent}/cpu.weight", min(CPU_WEIGHT_MAX, CPU_WEIGHT * max(1, workers)))
        except OSError:
            remove_server_trees([parent])
            raise
        return cls({name: parent for name in controllers}, limits)

    def limit(self, slot: int) -> None:
        """The limits of the controllers this tree has (all three, for the sandbox)."""
        path = self.directories(slot)[0]
        if "memory" in self.bases:
            write(f"{path}/memory.max", memory_limit(self.limits))
            for name, value in (("memory.swap.max", 0), ("memory.oom.group", 1)):
                if os.path.exists(f"{path}/{name}"):  # without swap accounting or on old kernels
                    write(f"{path}/{name}", value)
        if "pids" in self.bases:
            write(f"{path}/pids.max", int(self.limits["max_processes"]))
        if "cpu" in self.bases:
            write(f"{path}/cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}")

    def cpu_total(self, slot: int) -> float:
        return stat(f"{self.directories(slot)[0]}/cpu.stat", "usage_usec") / 1e6  # kept by v2 itself

    def oom_kills(self, slot: int) -> int:
        if "memory" not in self.bases:
            return 0
        return stat(f"{self.directories(slot)[0]}/memory.events", "oom_kill")

    def threads_file(self, slot: int) -> str:
        return f"{self.directories(slot)[0]}/cgroup.threads"

    def procs_file(self, slot: int) -> str:
        return f"{self.directories(slot)[0]}/cgroup.procs"

    def kill_tree(self, slot: int) -> None:
        """cgroup.kill: the kernel signals every task, and kills any child a racing fork adds."""
        if not kill(self.directories(slot)[0]):  # before Linux 5.14
            super().kill_tree(slot)

    def clear(self, slot: int) -> None:
        path = self.directories(slot)[0]
        if not populated(path):
            return
        kill(path)
        deadline = time.monotonic() + self.CLEAR_SECONDS
        while populated(path):
            if time.monotonic() > deadline:
                raise OSError(errno.EBUSY, f"{path} still holds processes of an earlier job")
            time.sleep(0.005)
