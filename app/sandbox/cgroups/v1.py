"""cgroup v1: one hierarchy per controller, each job's slot a cgroup in all four.

memory counts every page the tree touches (shmem, tmpfs and memfd included) and reports the
kernel's OOM kills in memory.oom_control; pids bounds the tree whatever its uids or sessions;
cpu gives each job an equal share and at most one CPU; cpuacct counts its CPU time.
"""

import os

from .files import PREFIX, read, remove_stale, stat, write
from .slots import CPU_PERIOD_US, SlotCgroups, memory_limit

CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
CPU_SHARES = 1024  # one ordinary process's weight


class V1Cgroups(SlotCgroups):
    version = "v1"

    @classmethod
    def open(cls, hierarchies: dict[str, str], limits: dict, workers: int = 1) -> "V1Cgroups":
        """hierarchies: controller -> this process's cgroup in it. All jobs share one parent,
        weighted as `workers` ordinary processes against the host's others."""
        bases = {}
        for name in CONTROLLERS:
            remove_stale(hierarchies[name])
            bases[name] = os.path.join(hierarchies[name], f"{PREFIX}{os.getpid()}")
            os.makedirs(bases[name], exist_ok=True)
        write(f"{bases['cpu']}/cpu.shares", CPU_SHARES * max(1, workers))
        return cls(bases, limits)

    def limit(self, slot: int) -> None:
        memory = self.directory("memory", slot)
        write(f"{memory}/memory.limit_in_bytes", memory_limit(self.limits))
        if os.path.exists(f"{memory}/memory.memsw.limit_in_bytes"):  # swap does not make room either
            write(f"{memory}/memory.memsw.limit_in_bytes", memory_limit(self.limits))
        write(f"{self.directory('pids', slot)}/pids.max", int(self.limits["max_processes"]))
        cpu = self.directory("cpu", slot)
        write(f"{cpu}/cpu.cfs_period_us", CPU_PERIOD_US)
        write(f"{cpu}/cpu.cfs_quota_us", CPU_PERIOD_US)

    def cpu_total(self, slot: int) -> float:
        return int(read(f"{self.directory('cpuacct', slot)}/cpuacct.usage")) / 1e9

    def oom_kills(self, slot: int) -> int:
        return stat(f"{self.directory('memory', slot)}/memory.oom_control", "oom_kill")

    def threads_file(self, slot: int) -> str:
        return f"{self.directory('pids', slot)}/tasks"

    def procs_file(self, slot: int) -> str:
        return f"{self.directory('pids', slot)}/cgroup.procs"
