"""Limits the server enforces from outside the job: the wall clock and its process tree's totals.

The job's own timers report first (with the line it stopped on); these are what hold when
the learner's code disarms or swallows them, or forks around the per-process rlimits.
"""
import time

from . import watch

INFINITY = float("inf")


class OutsideLimits:
    def __init__(self, limits: dict, zygote_anon_bytes: int):
        self.limits, self.baseline = limits, zygote_anon_bytes
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
        if due and now >= self.next_scan:
            totals = watch.job_totals([p.pid for p in due], self.baseline)
            for proc in due:
                count, grown = totals.get(proc.pid, (0, 0))
                if count > self.limits["max_processes"]:
                    proc.kill("processes")
                elif grown > self.limits["memory_bytes"]:
                    proc.kill("memory")
            self.next_scan = now + watch.INTERVAL
        return max(self.next_scan, min(p.started + watch.INTERVAL for p in running))
