"""What operators see: structured logs, Prometheus metrics at /metrics, counts from the store
and the sandbox. `install(app)` wires it into an app; `watch_sandbox` once the sandbox runs."""

from fastapi import FastAPI
from fastapi.responses import Response

from . import logs
from .metrics import Metrics
from .middleware import RequestMetrics
from .submissions import Stopwatch, graded

__all__ = ["Stopwatch", "graded", "install", "watch_sandbox"]


def install(app: FastAPI) -> Metrics:
    settings = app.state.settings
    logs.configure(settings.log_level, settings.log_format)
    metrics = app.state.metrics = Metrics()
    app.state.store.on_attempt = metrics.attempt

    def scrape() -> Response:
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type)

    app.add_api_route("/metrics", scrape, include_in_schema=False)
    app.add_middleware(RequestMetrics, metrics=metrics)
    return metrics


def watch_sandbox(metrics: Metrics, sandbox) -> None:
    """The sandbox reports its queue and its restarts as they happen (a scrape of one worker
    would not see the others' sandboxes)."""
    if sandbox is not None:
        sandbox.on_restart = metrics.sandbox_restarted
        sandbox.fair.on_change = metrics.sandbox_load
        metrics.sandbox_load(sandbox.fair.waiting(), sandbox.fair.busy())
