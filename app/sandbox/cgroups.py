"""The kernel's accounting for each job's whole process tree: cgroup v1 memory, pids, cpu.

One cgroup per slot in each hierarchy, made on first use and reused (slots are pooled), all
under `codecloze-<server pid>` inside the cgroup this server already runs in, so whatever
bounds the server still bounds its jobs. Memory counts everything a job's processes touch,
shmem, tmpfs and memfd pages included; pids counts every process whatever its uid or
session; cpu gives each job an equal share and at most one CPU, and cpuacct its CPU time
over the tree. Where no writable v1 hierarchy offers these controllers, `CgroupPool.open`
returns None and the server polls /proc instead (watch.py), as /healthz then says.
"""
import os
import time

CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
MEMORY_HEADROOM = 32 << 20  # the job process's own pages, beyond what it may allocate
PREFIX = "codecloze-"


def _hierarchies() -> dict[str, str]:
    """controller -> directory of this process's cgroup in that controller's v1 hierarchy."""
    mine = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                mine[name] = path
    found = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            if fields[sep + 1] != "cgroup":
                continue
            options = set(fields[sep + 3].split(","))
            for name in CONTROLLERS:
                if name in options and name in mine and name not in found:
                    found[name] = fields[4] + mine[name].rstrip("/")
    return found


def _write(path: str, value) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _remove_stale(directory: str) -> None:
    """Trees of servers that were killed: empty by now, since their jobs died with them."""
    for entry in os.scandir(directory):
        pid = entry.name[len(PREFIX):]
        if entry.name.startswith(PREFIX) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            _remove_tree(entry.path)


def _remove_tree(path: str) -> None:
    for entry in os.scandir(path):
        if entry.is_dir():
            try:
                os.rmdir(entry.path)
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def remove_server_trees(bases: list[str], seconds: float = 2.0) -> None:
    """From the web app, once a fork server is gone: its jobs die with it (they are killed when
    their parent dies), so its trees empty within moments; remove them rather than leave
    directories inside the cgroup the app runs in."""
    deadline = time.monotonic() + seconds
    while True:
        for base in bases:
            if os.path.isdir(base):
                _remove_tree(base)
        if not any(os.path.isdir(b) for b in bases) or time.monotonic() > deadline:
            return
        time.sleep(0.02)


class CgroupPool:
    def __init__(self, bases: dict[str, str], limits: dict):
        self.bases, self.limits = bases, limits
        self.made: set[int] = set()
        self.oom_before: dict[int, int] = {}

    @classmethod
    def open(cls, limits: dict, workers: int = 1) -> "CgroupPool | None":
        """The pool, or None where the controllers are missing or not writable. All jobs share
        one parent cgroup, weighted as `workers` ordinary processes against the host's others."""
        try:
            found = _hierarchies()
            if set(found) != set(CONTROLLERS):
                return None
            bases = {}
            for name, directory in found.items():
                _remove_stale(directory)
                bases[name] = os.path.join(directory, f"{PREFIX}{os.getpid()}")
                os.makedirs(bases[name], exist_ok=True)
            _write(f"{bases['cpu']}/cpu.shares", 1024 * max(1, workers))
            return cls(bases, limits)
        except OSError:
            return None

    def _dir(self, name: str, slot: int) -> str:
        return f"{self.bases[name]}/slot-{slot}"

    def _make(self, slot: int) -> None:
        for name in CONTROLLERS:
            os.makedirs(self._dir(name, slot), exist_ok=True)
        memory = self._dir("memory", slot)
        limit = int(self.limits["memory_bytes"]) + MEMORY_HEADROOM
        _write(f"{memory}/memory.limit_in_bytes", limit)
        if os.path.exists(f"{memory}/memory.memsw.limit_in_bytes"):
            _write(f"{memory}/memory.memsw.limit_in_bytes", limit)  # swap does not make room either
        _write(f"{self._dir('pids', slot)}/pids.max", int(self.limits["max_processes"]))
        cpu = self._dir("cpu", slot)
        _write(f"{cpu}/cpu.cfs_period_us", 100_000)
        _write(f"{cpu}/cpu.cfs_quota_us", 100_000)  # one CPU at most, however many processes
        self.made.add(slot)

    def enter(self, slot: int, pid: int) -> None:
        """Puts a fresh job process (before it runs any learner code) into its slot's cgroups."""
        if slot not in self.made:
            self._make(slot)
        _write(f"{self._dir('cpuacct', slot)}/cpuacct.usage", 0)
        self.oom_before[slot] = self.oom_kills(slot)
        for name in CONTROLLERS:
            _write(f"{self._dir(name, slot)}/cgroup.procs", pid)

    def cpu_seconds(self, slot: int) -> float:
        return int(_read(f"{self._dir('cpuacct', slot)}/cpuacct.usage")) / 1e9

    def oom_kills(self, slot: int) -> int:
        for line in _read(f"{self._dir('memory', slot)}/memory.oom_control").splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def ran_out_of_memory(self, slot: int) -> bool:
        """Whether the kernel killed a process of this slot's job for memory."""
        return self.oom_kills(slot) > self.oom_before.get(slot, 0)

    def controllers(self) -> dict[str, str]:
        return dict(self.bases)

    def close(self) -> None:
        for base in self.bases.values():
            _remove_tree(base)

