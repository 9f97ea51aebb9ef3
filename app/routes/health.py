"""Liveness and what protects learner code on this host."""
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from .. import deps

router = APIRouter()


@router.get("/healthz")
def health(request: Request) -> JSONResponse:
    settings = deps.settings(request)
    sandbox = request.app.state.sandbox
    store = deps.store(request)
    database = store.healthy or store.recheck()
    return JSONResponse({
        "status": "ok" if database else "degraded",
        "database": "ok" if database else "cannot write: submissions are scored but not saved",
        "snippets": len(deps.library(request).all()),
        "execution": "on" if sandbox is not None else "off",
        "protections": sandbox.protections() if sandbox is not None else {},
        "accounting": sandbox.accounting() if sandbox is not None else {},
        "limits": {"cpu_seconds": settings.cpu_seconds, "wall_seconds": settings.wall_seconds,
                   "memory_mb": settings.memory_mb, "workers": settings.workers, "queue": settings.queue},
    })
