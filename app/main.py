"""The app factory: `create_app(settings)`; `uvicorn app.main:app` serves the default one, built
when the server first asks for it."""

import asyncio
import gc
import logging
import multiprocessing
import os
import signal
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from sqlalchemy.engine import make_url

from app.i18n.catalogs import compile_stale
from app.learn.recording import attempt_store, learners_in, write_attempts
from app.learn.retry import RetryLinks
from app.lti.grades import GradeSender
from app.snippets.labels import status_label
from app.teach.bundled_analyses import load_shipped, start_missing
from app.teach.catalog import Catalog
from app.teach.strength_jobs import StrengthJobs
from app.web.assets import head_tags
from app.web.head_requests import HeadAsGet
from app.web.keys import app_secret
from app.web.language import LanguageMiddleware
from app.web.markdown import pygments_css
from app.web.teacher_auth import TeacherAuth
from app.web.templating import make_templates

from . import observability
from .classes.fold import Folder
from .db.legacy_files import import_files
from .db.snippet_rows import SnippetRows
from .memory.fitting import Fitter
from .memory.history import KnownLearners
from .memory.identity import Identity
from .memory.progress import utc_time
from .observability.addresses import first_listening_urls
from .routes import (
    accounts,
    api,
    attempts,
    audit_page,
    classes,
    course_api,
    docs,
    errors,
    health,
    home,
    lti,
    me,
    review,
    teach,
    trainer,
)
from .sandbox.packages import listing
from .settings import PROJECT_DIR, Settings, wrong_settings
from .snippets.errors import SnippetInvalid
from .snippets.library import SnippetLibrary
from .teach.starter import STARTER
from .web.same_origin import same_origin

log = logging.getLogger("codecloze")


def _sqlite_file(settings: Settings) -> Path | None:
    url = make_url(settings.sqlalchemy_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(url.database)
    return None


def _private_paths(settings: Settings) -> tuple:
    """What jobs must never see: the data dir, and the database's dir wherever it is."""
    database = _sqlite_file(settings)
    dirs = [settings.data_dir.resolve()] + ([database.resolve().parent] if database else [])
    return tuple(dict.fromkeys(dirs))


def make_sandbox(settings: Settings):
    if not settings.execution:
        return None
    from .sandbox import Limits, Sandbox  # imported lazily: hosts with execution off never need it

    limits = Limits(
        cpu_seconds=settings.cpu_seconds, wall_seconds=settings.wall_seconds, memory_bytes=settings.memory_mb << 20
    )
    return Sandbox(
        limits,
        workers=settings.workers,
        queue=settings.queue,
        data_dirs=_private_paths(settings),
        new_owners_per_minute=settings.new_learners_per_minute,
        address_jobs=settings.address_jobs,
        packages=settings.package_names,
        jobs=settings.jobs_at_once or None,
        background=settings.background_jobs,
        max_wait=settings.queue_seconds,
    )


@asynccontextmanager
async def lifespan(app: FastAPI):
    sandbox = make_sandbox(app.state.settings)
    if sandbox is not None:
        await sandbox.start()
    app.state.sandbox = sandbox
    observability.watch_sandbox(app.state.metrics, sandbox)
    if sandbox is not None:  # made now, before /readyz says so: an answer is judged by a complete one
        start_missing(app.state.strength_jobs, app.state.unanalysed, sandbox, app.state.store.engine)
    loop = asyncio.get_running_loop()
    if sandbox is not None:  # fits and analyses share one background budget
        app.state.fitter.share(sandbox.background, loop)
    announcer = loop.create_task(_announce_login(app)) if app.state.auth.generated else None
    follower = loop.create_task(app.state.catalog.follow(app.state.settings.sync_seconds))
    app.state.grades.start(loop)
    thresholds = gc.get_threshold()
    # What start-up made lives as long as the server: keep the collector off it, and let it run
    # less often (a request allocates thousands of short-lived objects). Measured: about 7 % less
    # CPU per submission.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        follower.cancel()
        if announcer is not None:
            announcer.cancel()
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        await app.state.strength_jobs.close()
        app.state.fitter.close()
        app.state.folder.close()
        app.state.grades.close()
        if sandbox is not None:
            await sandbox.close()
        app.state.metrics.close()


async def _announce_login(app: FastAPI) -> None:
    """The teacher login URL with the host and port, once the server listens (after start-up);
    the bare path if it never does (an in-process client) or stops first."""
    urls: list[str] = []
    try:
        urls = await first_listening_urls()
    finally:
        app.state.auth.announce(urls)


def _private_data(settings: Settings) -> None:
    """The data dir 0700 and an SQLite database file 0600 (its -wal/-shm files follow it)."""
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    settings.data_dir.chmod(0o700)
    database = _sqlite_file(settings)
    if database is not None:
        os.close(os.open(database, os.O_CREAT | os.O_WRONLY, 0o600))
        database.chmod(0o600)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()  # every value checked as it is built (app/settings.py)
    compile_stale()
    _private_data(settings)
    store = attempt_store(settings.sqlalchemy_url, settings.db_busy_ms)
    rows = SnippetRows(store.engine)
    import_files(settings.data_dir, rows)
    library = SnippetLibrary(rows)
    library.load_dir(settings.snippets_dir)
    bundled = library.all(include_hidden=True)
    unanalysed = load_shipped(store.engine, bundled, settings.snippets_dir)

    app = FastAPI(
        title="codecloze",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,  # /docs: routes/docs.py
        dependencies=[Depends(same_origin)],  # only this site's pages post forms
        # The app's metrics are Prometheus (/metrics); FastAPI's OpenTelemetry bridge would look
        # up three global providers on every request to find none configured.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.library = library
    app.state.store = store
    app.state.catalog = Catalog(rows, library)
    app.state.catalog.load()
    secret = app_secret(settings.secret_key, settings.data_dir)
    app.state.auth = TeacherAuth(settings, secret)
    app.state.identity = Identity(secret)
    app.state.retry = RetryLinks(secret)
    app.state.known_learners = KnownLearners(store.engine)
    app.state.strength_jobs = StrengthJobs(current=lambda snippet_id: getattr(library.get(snippet_id), "version", None))
    app.state.unanalysed = unanalysed  # bundled snippets whose analysis is made at start-up
    # One fit at a time on this host, whatever the workers: each holds a torch process for minutes.
    fitting_lock = settings.data_dir / "fitting.lock"
    app.state.fitter = Fitter(store.engine, settings.sqlalchemy_url, settings.fit_reviews, fitting_lock)
    app.state.folder = Folder(store.engine)
    app.state.grades = GradeSender(store.engine)  # scores owed to LMSs (LTI)

    def write_batch(db, batch: list) -> None:  # one transaction, in the writer's thread
        write_attempts(db, batch)
        app.state.grades.mark(db, learners_in(batch))

    def written(batch: list) -> None:  # after each committed batch, in the writer's thread
        app.state.fitter.wrote(learners_in(batch))
        app.state.folder.wrote()
        app.state.grades.wrote()

    store.write_batch = write_batch
    store.on_written = written
    app.state.sandbox = None
    app.state.templates = templates = make_templates()
    templates.env.globals["status_label"] = status_label
    templates.env.filters["utc_time"] = utc_time
    templates.env.globals["sandbox_packages"] = listing(settings.package_names)  # the upload page lists them
    templates.env.globals["starter_snippet"] = STARTER  # and explains the format with this file
    templates.env.globals["head_tags"] = head_tags(settings.use_cdn, lambda p: f"/static/{p}")

    app.mount("/static", StaticFiles(directory=PROJECT_DIR / "static"), name="static")
    app.add_api_route(
        "/favicon.ico",
        lambda: FileResponse(PROJECT_DIR / "static" / "favicon.svg", media_type="image/svg+xml"),
        include_in_schema=False,
    )
    highlight_css = pygments_css()
    app.add_api_route(
        "/highlight.css",
        lambda: Response(highlight_css, media_type="text/css", headers={"Cache-Control": "public, max-age=86400"}),
        include_in_schema=False,
    )
    for module in (
        home,
        trainer,
        review,
        me,
        attempts,
        accounts,
        audit_page,
        teach,
        classes,
        api,
        course_api,
        health,
        docs,
        lti,
    ):
        app.include_router(module.router)
    app.include_router(lti.api)
    errors.install(app)
    observability.install(app)
    app.add_middleware(LanguageMiddleware, default=settings.language)  # per request: web/language.py
    app.add_middleware(HeadAsGet)
    return app


def _default_app() -> FastAPI:
    try:
        return create_app()
    except SnippetInvalid as err:
        # A broken snippet file stops start-up with its path, line and problem, not a traceback.
        raise SystemExit(f"codecloze: cannot start, a snippet file is invalid:\n{err}") from None
    except ValidationError as err:
        # Each wrong setting on a line of its own, with its variable and what to fix.
        stop_supervisor()
        raise SystemExit("\n".join(["codecloze: cannot start, a setting is wrong:", *wrong_settings(err)])) from None


def stop_supervisor() -> None:
    """Under `uvicorn --workers`, a worker that cannot start would be restarted forever: ask the
    supervisor to stop instead, so the operator sees the message once and a non-zero exit."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid:
        os.kill(parent.pid, signal.SIGTERM)


def __getattr__(name: str) -> FastAPI:
    """`uvicorn app.main:app` asks for `app`: the default app is built then, once, and not when
    the module is imported (tests and tools import the factory without building anything)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    built = globals()["app"] = _default_app()
    return built
