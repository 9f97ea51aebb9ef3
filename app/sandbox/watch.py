"""Totals over a job's whole process tree, which per-process rlimits cannot see.

RLIMIT_AS caps each process, so a job that forks could multiply its memory by the process
limit. While jobs run, the server adds up, per job, the processes in its tree and the
anonymous memory each holds beyond the zygote's (what the job allocated itself; pages still
shared with the zygote are not counted) and stops a job over either limit. It also catches
process counts on hosts where RLIMIT_NPROC does not apply (uid 0 without capabilities).
"""

import os

INTERVAL = 0.1  # seconds between scans, and how long a job runs before it is first scanned
_PAGE = os.sysconf("SC_PAGE_SIZE")


def anonymous_bytes(pid: int) -> int:
    """Resident anonymous memory: resident minus file-backed/shared (statm fields 2 and 3)."""
    with open(f"/proc/{pid}/statm") as f:
        resident, shared = (int(x) for x in f.read().split()[1:3])
    return (resident - shared) * _PAGE


def parent_pids() -> dict[int, int]:
    """pid -> parent pid for every process (the kernel's view from this pid namespace)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return parents


def job_totals(roots: list[int], baseline: int) -> dict[int, tuple[int, int]]:
    """root pid -> (processes in its tree, anonymous bytes above `baseline` summed over them)."""
    parents = parent_pids()
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    totals = {}
    for root in roots:
        tree, todo = [], [root] if root in parents else []
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, ()))
        grown = 0
        for pid in tree:
            try:
                grown += max(0, anonymous_bytes(pid) - baseline)
            except (OSError, ValueError):
                pass
        totals[root] = (len(tree), grown)
    return totals
