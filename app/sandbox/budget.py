"""How many jobs may run at once: a memory and process budget, not the worker count.

A job that sleeps or waits holds a slot but little CPU, so slots bounded by workers let sleeping
jobs keep an honest one from starting. Jobs are admitted while their worst case fits: each may
touch `memory_bytes` (+ its cgroup's headroom) and start `max_processes`; the CPU they do use
is shared between them by the slots' cgroups (equal weight, at most one CPU each).
"""

import os

from .cgroups.slots import MEMORY_HEADROOM
from .types import Limits

DEFENDED_ADDRESSES = 4  # addresses that, each holding all it may, still leave an honest job a slot
PER_WORKER = DEFENDED_ADDRESSES + 1  # jobs running at once per worker, at most: theirs, and the rest's
MEMORY_SHARE = 0.5  # of the host's memory that jobs may hold together
PROCESS_BUDGET = 1024  # processes that jobs may hold together


def host_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


def job_budget(workers: int, limits: Limits, memory: int | None = None) -> int:
    """Jobs that may run at once: at most PER_WORKER per worker, within the budgets, never
    fewer than the workers."""
    memory = host_memory() if memory is None else memory
    per_job = limits.memory_bytes + MEMORY_HEADROOM
    by_memory = int(memory * MEMORY_SHARE) // per_job if memory else PER_WORKER * workers
    by_processes = PROCESS_BUDGET // max(1, limits.max_processes)
    return max(workers, min(PER_WORKER * workers, by_memory, by_processes))


def per_address(workers: int, jobs: int) -> int:
    """Slots one address may hold: as many as its jobs can keep busy (the workers), and few enough
    that DEFENDED_ADDRESSES addresses holding theirs leave a slot free for anyone else. A classroom
    behind one address keeps every CPU busy; an attacker needs more addresses than that to make an
    honest learner wait (with the full budget: 4 × workers + workers jobs)."""
    return max(1, min(workers, (jobs - 1) // DEFENDED_ADDRESSES))
