"""Resident memory of a process tree, for the health page and the benchmark.

RSS counts the torch pages a forked job shares with the zygote once per process; PSS splits
shared pages between their users, so its sum is what the tree really costs.
"""
import os


def _parents() -> dict[int, int]:
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return parents


def descendants(roots: list[int]) -> list[int]:
    parents = _parents()
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
    pids = descendants(roots)
    return {"processes": len(pids),
            "rss_bytes": 1024 * sum(_kib(f"/proc/{p}/status", "VmRSS") for p in pids),
            "pss_bytes": 1024 * sum(_kib(f"/proc/{p}/smaps_rollup", "Pss") for p in pids)}
