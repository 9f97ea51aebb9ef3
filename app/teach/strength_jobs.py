"""Check-strength runs in the background, so the teacher's page can show progress and stay usable."""
import asyncio
import secrets
import time
from dataclasses import dataclass, field

from app.snippets.model import Snippet


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

    @property
    def finished(self) -> bool:
        return self.report is not None or self.error is not None


class StrengthJobs:
    """At most one run per snippet version at a time; finished runs are kept for a while."""

    def __init__(self, keep: int = 64):
        self._jobs: dict[str, StrengthJob] = {}
        self._keep = keep

    def get(self, job_id: str) -> StrengthJob | None:
        return self._jobs.get(job_id)

    def start(self, snippet: Snippet, sandbox) -> str:
        for job_id, job in self._jobs.items():
            if (job.snippet_id, job.version) == (snippet.id, snippet.version) and not job.finished:
                return job_id
        self._forget_old()
        job_id = secrets.token_urlsafe(8)
        job = self._jobs[job_id] = StrengthJob(snippet.id, snippet.version)
        job.task = asyncio.get_running_loop().create_task(self._run(job, snippet, sandbox))
        return job_id

    async def _run(self, job: StrengthJob, snippet: Snippet, sandbox) -> None:
        from app.snippets.strength import check_strength

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            job.report = await check_strength(snippet, sandbox, on_progress=progress)
        except Exception as err:  # reported on the page; the server carries on
            job.error = f"{type(err).__name__}: {err}"

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.finished]
        for job_id in finished[: max(0, len(self._jobs) - self._keep)]:
            del self._jobs[job_id]

    async def close(self) -> None:
        for job in self._jobs.values():
            if job.task and not job.task.done():
                job.task.cancel()
