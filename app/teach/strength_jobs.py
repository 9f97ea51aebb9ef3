"""Check-strength analyses run in the background, one per snippet version, after an upload or an
edit (or the first time a learner's answer needs one), so pages stay usable and show progress.

Progress and the finished report go to the database: every worker and host grades by them.
"""

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from app.db import strength_rows
from app.learn.rejudging import rejudge
from app.snippets.model import Snippet

log = logging.getLogger("codecloze")
PROGRESS_EVERY_SECONDS = 1.0  # how often a run writes its progress


@dataclass
class StrengthJob:
    snippet_id: str
    version: str
    done: int = 0
    total: int = 0
    report: object | None = None  # StrengthReport when finished
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    task: asyncio.Task | None = None
    writes: set = field(default_factory=set)  # progress writes under way (kept so they are not collected)

    @property
    def finished(self) -> bool:
        return self.report is not None or self.error is not None


def _progress(engine, snippet_id: str, version: str, done: int, total: int) -> None:
    with contextlib.suppress(SQLAlchemyError):  # a lost progress write only delays the bar
        strength_rows.progress(engine, snippet_id, version, done, total)


def _rejudged(engine, snippet: Snippet) -> None:
    try:
        rejudge(engine, lambda _id, _version: snippet, snippet.id, snippet.version)
    except SQLAlchemyError:  # the next completion or teacher decision judges them
        log.exception("unproven answers of %s not judged again", snippet.id)


class StrengthJobs:
    """At most one run per snippet version at a time in this process; finished runs are kept for a while."""

    def __init__(self, keep: int = 64):
        self._jobs: dict[str, StrengthJob] = {}
        self._keep = keep

    def get(self, job_id: str) -> StrengthJob | None:
        return self._jobs.get(job_id)

    def running(self, snippet_id: str, version: str) -> str | None:
        for job_id, job in self._jobs.items():
            if (job.snippet_id, job.version) == (snippet_id, version) and not job.finished:
                return job_id
        return None

    def busy(self) -> bool:
        """Whether any analysis is under way in this process."""
        return any(not job.finished for job in self._jobs.values())

    def start(self, snippet: Snippet, sandbox, engine=None) -> str:
        """The id of the version's run in this process, started now unless one is under way."""
        found = self.running(snippet.id, snippet.version)
        if found:
            return found
        self._forget_old()
        if engine is not None:  # before any response: every worker sees the run is under way
            try:
                strength_rows.save(
                    engine,
                    snippet.id,
                    snippet.version,
                    state="running",
                    done=0,
                    total=0,
                    caught=None,
                    report=None,
                    error=None,
                )
            except SQLAlchemyError:  # the database is down: the run goes on, its end is written if it can be
                pass
        job_id = secrets.token_urlsafe(8)
        job = self._jobs[job_id] = StrengthJob(snippet.id, snippet.version)
        job.task = asyncio.get_running_loop().create_task(self._run(job, snippet, sandbox, engine))
        return job_id

    async def _run(self, job: StrengthJob, snippet: Snippet, sandbox, engine) -> None:
        from app.snippets.strength import check_strength
        from app.snippets.strength_report import judged, report_data

        written = [0.0]

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total
            if engine is not None and time.monotonic() - written[0] > PROGRESS_EVERY_SECONDS:
                written[0] = time.monotonic()
                job.writes.add(
                    task := asyncio.get_running_loop().create_task(
                        asyncio.to_thread(_progress, engine, job.snippet_id, job.version, done, total)
                    )
                )
                task.add_done_callback(job.writes.discard)

        try:
            report = await check_strength(snippet, sandbox, on_progress=progress)
            data = report_data(report, snippet)
            await self._write(
                engine,
                job,
                state="complete" if report.complete else "failed",
                done=job.done,
                total=job.total,
                caught=sorted(report.caught_positions()),
                judged=judged(data),
                report=data,
                seconds=report.seconds,
                error=None if report.complete else "some mutants were not run in time",
            )
            job.report = report
            if report.complete and engine is not None:  # answers given meanwhile get their verdict
                await asyncio.to_thread(_rejudged, engine, snippet)
        except Exception as err:  # reported on the page; the server carries on
            job.error = f"{type(err).__name__}: {err}"
            with contextlib.suppress(SQLAlchemyError):
                await self._write(engine, job, state="failed", error=job.error[:200])

    @staticmethod
    async def _write(engine, job: StrengthJob, **values) -> None:
        if engine is not None:
            await asyncio.to_thread(strength_rows.save, engine, job.snippet_id, job.version, **values)

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.finished]
        for job_id in finished[: max(0, len(self._jobs) - self._keep)]:
            del self._jobs[job_id]

    async def close(self) -> None:
        for job in self._jobs.values():
            if job.task and not job.task.done():
                job.task.cancel()
