"""Check-strength analyses run in the background, one per snippet version, after an upload or an
edit (or the first time a learner's answer needs one), so pages stay usable and show progress.
They take the sandbox's background budget, never the learners' share (sandbox/background.py).

Progress and the finished report go to the database: every worker and host grades by them.
"""

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from app.db import strength_rows
from app.learn.rejudging import rejudge
from app.snippets.model import Snippet

log = logging.getLogger("codecloze")
PROGRESS_EVERY_SECONDS = 1.0  # how often a run writes its progress
TEACHER, LEARNER = 0, 1  # who asked for a run: a teacher's (and the bundled snippets') go first
# Analyses learners' answers may have waiting in a process: more are not queued (the answers
# stay unproven, and the first need after the queue drains starts theirs).
LEARNER_QUEUED = 8
STOPPED = "stopped: the version was replaced or deleted"


@dataclass
class StrengthJob:
    snippet_id: str
    version: str
    done: int = 0
    total: int = 0
    report: object | None = None  # StrengthReport when finished
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    task: asyncio.Task | None = None  # None while it waits its turn
    writes: set = field(default_factory=set)  # progress writes under way (kept so they are not collected)
    priority: int = TEACHER
    turn: int = 0  # order of arrival, within a priority
    stored: bool = False  # made before or elsewhere: the database's row is the analysis
    stop: str | None = None  # why it was stopped before its end

    @property
    def finished(self) -> bool:
        return self.report is not None or self.error is not None or self.stored

    @property
    def queued(self) -> bool:
        return self.task is None and not self.finished


def _progress(engine, snippet_id: str, version: str, done: int, total: int) -> None:
    with contextlib.suppress(SQLAlchemyError):  # a lost progress write only delays the bar
        strength_rows.progress(engine, snippet_id, version, done, total)


def _rejudged(engine, snippet: Snippet) -> None:
    try:
        rejudge(engine, lambda _id, _version: snippet, snippet.id, snippet.version)
    except SQLAlchemyError:  # the next completion or teacher decision judges them
        log.exception("unproven answers of %s not judged again", snippet.id)


def _made(engine, snippet: Snippet) -> bool:
    """Whether the version's analysis is complete, or under way in a live worker."""
    try:
        return strength_rows.judged(engine, snippet.id, snippet.version)[0] in ("complete", "running")
    except SQLAlchemyError:
        return False


class InBackground:
    """The sandbox as an analysis uses it: each job in the background budget (sandbox/background.py)."""

    def __init__(self, sandbox):
        self.sandbox = sandbox
        self.workers = sandbox.background.slots  # jobs an analysis keeps in flight

    async def run(self, job):
        return await self.sandbox.run(job, background=True)


class StrengthJobs:
    """One analysis at a time in this process, the others waiting their turn (a teacher's before
    a learner's, then in order of arrival); one per snippet version. A version another worker has
    made or is making is not made again, and a version no longer current (replaced, deleted) stops.
    Finished runs are kept for a while. current: a snippet id's current version (None: deleted);
    without it, nothing counts as replaced."""

    def __init__(self, keep: int = 64, current: Callable[[str], str | None] | None = None):
        self._jobs: dict[str, StrengthJob] = {}
        self._waiting: dict[str, tuple] = {}  # job id -> (snippet, sandbox, engine)
        self._keep = keep
        self._current = current
        self._turns = itertools.count()
        self._runner: asyncio.Task | None = None

    def get(self, job_id: str) -> StrengthJob | None:
        return self._jobs.get(job_id)

    def running(self, snippet_id: str, version: str) -> str | None:
        """The version's run that has not finished, waiting or under way."""
        for job_id, job in self._jobs.items():
            if (job.snippet_id, job.version) == (snippet_id, version) and not job.finished:
                return job_id
        return None

    def busy(self) -> bool:
        """Whether any analysis is waiting or under way in this process."""
        return any(not job.finished for job in self._jobs.values())

    def start(self, snippet: Snippet, sandbox, engine=None, by_learner: bool = False) -> str | None:
        """The id of the version's run: the one waiting or under way, one that reads the database's
        row when the version is made (or being made by another worker), or a new one in line. None:
        asked for by a learner's answer while as many of those wait as may."""
        self.stop_stale()
        found = self.running(snippet.id, snippet.version)
        if found:
            if not by_learner:
                self._jobs[found].priority = TEACHER
            return found
        self._forget_old()
        if engine is not None and _made(engine, snippet):
            return self._add(StrengthJob(snippet.id, snippet.version, stored=True))
        if by_learner and sum(j.queued and j.priority == LEARNER for j in self._jobs.values()) >= LEARNER_QUEUED:
            return None
        job = StrengthJob(snippet.id, snippet.version, priority=LEARNER if by_learner else TEACHER)
        job.turn = next(self._turns)
        job_id = self._add(job)
        self._waiting[job_id] = (snippet, sandbox, engine)
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._serve())
        return job_id

    def _add(self, job: StrengthJob) -> str:
        job_id = secrets.token_urlsafe(8)
        self._jobs[job_id] = job
        return job_id

    def _stale(self, job: StrengthJob) -> bool:
        return self._current is not None and self._current(job.snippet_id) != job.version

    def stop_stale(self) -> int:
        """Stops every run (waiting or under way) of a version no longer current; how many."""
        stopped = 0
        for job_id, job in self._jobs.items():
            if not job.finished and job.stop is None and self._stale(job):
                stopped += 1
                job.stop = STOPPED
                if job.task is None:
                    self._waiting.pop(job_id, None)
                    job.error = STOPPED
                else:
                    job.task.cancel()
        return stopped

    def line(self) -> list[str]:
        """The waiting runs' ids in the order they will run."""
        waiting = [job_id for job_id in self._waiting if not self._jobs[job_id].finished]
        return sorted(waiting, key=lambda i: (self._jobs[i].priority, self._jobs[i].turn))

    def _next(self) -> str | None:
        return next(iter(self.line()), None)

    async def _serve(self) -> None:
        """Runs the waiting analyses one after another until none waits."""
        while (job_id := self._next()) is not None:
            job = self._jobs[job_id]
            snippet, sandbox, engine = self._waiting.pop(job_id)
            if engine is not None and _made(engine, snippet):  # another worker made it meanwhile
                job.stored = True
                continue
            job.started = time.monotonic()
            job.task = asyncio.get_running_loop().create_task(self._run(job, snippet, sandbox, engine))
            await asyncio.wait([job.task])

    async def _run(self, job: StrengthJob, snippet: Snippet, sandbox, engine) -> None:
        from app.snippets.strength import check_strength
        from app.snippets.strength_report import judged, report_data

        written = [0.0]

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total
            if self._stale(job):  # replaced or deleted meanwhile, perhaps by another worker
                self.stop_stale()
            if engine is not None and time.monotonic() - written[0] > PROGRESS_EVERY_SECONDS:
                written[0] = time.monotonic()
                job.writes.add(
                    task := asyncio.get_running_loop().create_task(
                        asyncio.to_thread(_progress, engine, job.snippet_id, job.version, done, total)
                    )
                )
                task.add_done_callback(job.writes.discard)

        try:
            # Before any mutant runs: every worker sees the run is under way.
            await self._write(engine, job, state="running", done=0, total=0, caught=None, report=None, error=None)
            report = await check_strength(snippet, InBackground(sandbox), on_progress=progress)
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
        except asyncio.CancelledError:
            if job.stop is None:  # the server is stopping: the row goes stale, the next need starts it
                raise
            job.error = job.stop
            with contextlib.suppress(SQLAlchemyError):
                await self._write(engine, job, state="failed", error=job.stop)
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
        if self._runner is not None:
            self._runner.cancel()
        for job in self._jobs.values():
            if job.task and not job.task.done():
                job.task.cancel()
