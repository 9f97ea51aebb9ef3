"""The Prometheus metrics of one app: what operators graph and alert on.

One registry per app (tests build many apps in one process). With PROMETHEUS_MULTIPROC_DIR set
(several uvicorn workers), prometheus-client keeps every value in files in that directory and a
scrape of any worker sums all of them; without it, values live in this process only.
"""

import logging
import os
from functools import wraps

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, values

log = logging.getLogger("codecloze")

# Seconds: a page renders in milliseconds, a sandbox run takes ~20 ms to the wall limit (10 s).
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def multiprocess() -> bool:
    """prometheus-client chose file-backed values at import (PROMETHEUS_MULTIPROC_DIR was set)."""
    return values.ValueClass is not values.MutexValue


def never_fails(method):
    """A metrics failure is logged once per kind and never reaches the request it measures."""
    failed: set[str] = set()

    @wraps(method)
    def safe(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - counting must not break serving
            if type(err).__name__ not in failed:
                failed.add(type(err).__name__)
                log.warning("metrics: %s failed: %r", method.__name__, err)

    return safe


class Metrics:
    def __init__(self):
        self.multiprocess = multiprocess()
        # In multiprocess mode the values are in files: the metrics need no registry of their own.
        self.registry = CollectorRegistry()
        own = None if self.multiprocess else self.registry
        self.requests = Counter(
            "codecloze_http_requests",
            "HTTP requests by route template and status",
            ["method", "route", "status"],
            registry=own,
        )
        self.request_seconds = Histogram(
            "codecloze_http_request_seconds",
            "Time to answer a request, by route",
            ["route"],
            buckets=FAST,
            registry=own,
        )
        self.submission_seconds = Histogram(
            "codecloze_submission_seconds",
            "Time to grade a submission: scoring, sandbox and storing",
            buckets=SLOW,
            registry=own,
        )
        self.sandbox_seconds = Histogram(
            "codecloze_sandbox_seconds",
            "Time a submission waited for and ran in the sandbox",
            buckets=SLOW,
            registry=own,
        )
        self.verdicts = Counter(
            "codecloze_verdicts",
            "Graded submissions by sandbox verdict (not_run: not executed)",
            ["status"],
            registry=own,
        )
        self.attempts = Counter(
            "codecloze_attempts", "Attempts the database stored or refused", ["outcome"], registry=own
        )
        self.restarts = Counter(
            "codecloze_sandbox_restarts", "Fork servers started to replace a lost one", registry=own
        )
        self.waiting = Gauge(
            "codecloze_sandbox_queue_depth",
            "Sandbox jobs waiting for a worker",
            multiprocess_mode="livesum",
            registry=own,
        )
        self.running = Gauge(
            "codecloze_sandbox_jobs_running", "Sandbox jobs running", multiprocess_mode="livesum", registry=own
        )
        for outcome in ("stored", "failed"):
            self.attempts.labels(outcome)  # present from the start, at 0

    @never_fails
    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method if method in METHODS else "other", route, str(status)).inc()
        self.request_seconds.labels(route).observe(seconds)

    @never_fails
    def submission(self, verdict: str, sandbox_seconds: float | None, total_seconds: float) -> None:
        self.verdicts.labels(verdict).inc()
        self.submission_seconds.observe(total_seconds)
        if sandbox_seconds is not None:
            self.sandbox_seconds.observe(sandbox_seconds)

    @never_fails
    def attempt(self, stored: bool) -> None:
        self.attempts.labels("stored" if stored else "failed").inc()

    @never_fails
    def sandbox_restarted(self) -> None:
        self.restarts.inc()

    @never_fails
    def sandbox_load(self, waiting: int, running: int) -> None:
        self.waiting.set(waiting)
        self.running.set(running)

    def exposition(self) -> tuple[bytes, str]:
        """The text a scrape gets, and its content type."""
        if not self.multiprocess:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST

    def close(self) -> None:
        """A stopping worker's live gauges leave the sums."""
        if self.multiprocess:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(os.getpid())
