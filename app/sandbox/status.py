"""Resident memory of a process tree, for the health page and the benchmark.

RSS counts the torch pages a forked job shares with the zygote once per process; PSS splits
shared pages between their users, so its sum is what the tree really costs.
"""

from .watch import parent_pids


def pid_of(pidfd: int) -> int:
    """The pid, as this process's /proc numbers it, of the process a pidfd refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        return int(next(line for line in f if line.startswith("Pid:")).split()[1])


def descendants(roots: list[int]) -> list[int]:
    parents = parent_pids()
    tree, changed = set(roots), True
    while changed:
        grown = tree | {pid for pid, ppid in parents.items() if ppid in tree}
        changed, tree = grown != tree, grown
    return sorted(tree)


def _kib(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def usage(roots: list[int]) -> dict:
    """Memory of `roots` and all their descendants; `roots_rss_bytes` of the roots alone."""
    pids = descendants(roots)
    return {
        "processes": len(pids),
        "roots_rss_bytes": 1024 * sum(_kib(f"/proc/{p}/status", "VmRSS") for p in roots),
        "rss_bytes": 1024 * sum(_kib(f"/proc/{p}/status", "VmRSS") for p in pids),
        "pss_bytes": 1024 * sum(_kib(f"/proc/{p}/smaps_rollup", "Pss") for p in pids),
    }
