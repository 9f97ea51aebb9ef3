"""Liveness and what protects learner code on this host."""

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app.web.deps import CatalogDep, LibraryDep, SandboxDep, SettingsDep, StoreDep

from ..lti import grades
from ..sandbox.packages import listing
from ..teach.bundled_analyses import readiness

router = APIRouter()
STATUS_SECONDS = 2.0  # a health check answers quickly even when the fork server does not


@router.get("/healthz")
async def health(settings: SettingsDep, sandbox: SandboxDep, store: StoreDep, library: LibraryDep) -> JSONResponse:
    database = store.healthy or store.recheck()
    server = await fork_server(sandbox)
    working = database and server["state"] in ("running", "off")
    return JSONResponse(
        {
            "status": "ok" if working else "degraded",
            "database": "ok" if database else "cannot write: submissions are scored but not saved",
            "snippets": len(library.all()),
            "execution": "on" if sandbox is not None else "off",
            "fork_server": server,
            "protections": sandbox.protections() if sandbox is not None else {},
            "accounting": sandbox.accounting() if sandbox is not None else {},
            "sandbox_packages": listing(settings.package_names),
            "lti_grades": await run_in_threadpool(grades.summary, store.engine),
            "limits": {
                "cpu_seconds": settings.cpu_seconds,
                "wall_seconds": settings.wall_seconds,
                "memory_mb": settings.memory_mb,
                "workers": settings.workers,
                "queue": settings.queue,
            },
        }
    )


@router.get("/readyz")
async def ready(catalog: CatalogDep, library: LibraryDep, store: StoreDep, sandbox: SandboxDep) -> JSONResponse:
    """200 once every bundled snippet's check-strength analysis is complete (503 before), so a
    load balancer sends learners only to a server that judges each answer once."""
    bundled = [s for s in map(library.get, sorted(catalog.bundled)) if s is not None]
    found = await run_in_threadpool(readiness, store.engine, bundled)
    return JSONResponse(found, status_code=200 if found["ready"] or sandbox is None else 503)


async def fork_server(sandbox) -> dict:
    """Whether the fork server runs, its restarts and load, and (when it answers in time) its
    processes and memory. A server that is down is not restarted by looking at it."""
    if sandbox is None:
        return {"state": "off"}
    server = sandbox.server()
    if server["state"] == "running":
        try:
            info = await asyncio.wait_for(sandbox.status(), STATUS_SECONDS)
            server |= {
                "ready": len(info.get("ready_pids", ())),
                "processes": info["memory"]["processes"],
                "pss_bytes": info["memory"]["pss_bytes"],
                "answered_before_reap": info.get("answered_before_reap", 0),
            }
        except Exception:  # noqa: BLE001 - a slow or lost server is reported, not raised
            server["state"] = "not answering"
    return server
