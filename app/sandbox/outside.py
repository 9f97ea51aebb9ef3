"""Limits the server enforces from outside the job: the wall clock and its process tree's totals.

The job's own timers report first (with the line it stopped on); these are what hold when
the learner's code disarms or swallows them, or forks around the per-process rlimits.
"""

import time

from . import watch

INFINITY = float("inf")


CPU_GRACE = 0.25  # beyond the CPU limit, so that a lone process's own timer reports first


class OutsideLimits:
    def __init__(self, limits: dict, zygote_anon_bytes: int, cgroups=None):
        """With cgroups the kernel bounds memory and processes; CPU over the tree is read from
        the slot's cgroup (cpuacct in v1, cpu.stat in v2). Without, the trees are scanned in
        /proc (which misses shared and tmpfs memory)."""
        self.limits, self.baseline, self.cgroups = limits, zygote_anon_bytes, cgroups
        self.next_scan = 0.0

    def enforce(self, procs) -> float | None:
        """Kills what is over a limit; returns seconds until the next check is due."""
        now = time.monotonic()
        wake = min(self._deadlines(procs, now), self._totals(procs, now))
        return None if wake == INFINITY else max(0.0, wake - now)

    @staticmethod
    def _deadlines(procs, now: float) -> float:
        nearest = INFINITY
        for proc in procs:
            if proc.deadline <= now:
                proc.kill("wall" if proc.state == "running" else "setup")
                proc.deadline = INFINITY
            nearest = min(nearest, proc.deadline)
        return nearest

    def _totals(self, procs, now: float) -> float:
        """Scans the trees of jobs that have run for a while (a scan costs a few ms)."""
        running = [p for p in procs if p.state == "running" and p.report is None]
        if not running:
            return INFINITY
        due = [p for p in running if now - p.started >= watch.INTERVAL]
        if due and now >= self.next_scan and self.cgroups is not None:
            for proc in due:
                if self.cgroups.ran_out_of_memory(proc.slot):
                    proc.kill("memory")  # the kernel already killed one of its processes
                elif self.cgroups.cpu_seconds(proc.slot) > self.limits["cpu_seconds"] + CPU_GRACE:
                    proc.kill("cpu")
            self.next_scan = now + watch.INTERVAL
        elif due and now >= self.next_scan:
            totals = watch.job_totals([p.pid for p in due], self.baseline)
            for proc in due:
                count, grown = totals.get(proc.pid, (0, 0))
                if count > self.limits["max_processes"]:
                    proc.kill("processes")
                elif grown > self.limits["memory_bytes"]:
                    proc.kill("memory")
            self.next_scan = now + watch.INTERVAL
        return max(self.next_scan, min(p.started + watch.INTERVAL for p in running))
