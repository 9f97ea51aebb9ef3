"""The app for the execution benchmark; BENCH_RUNNER=cold swaps the sandbox for a fresh
`python -I` per submission (what the sandbox is measured against). Bench only."""

import asyncio
import os
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

from app.main import create_app
from app.sandbox import Verdict
from app.settings import Settings

RUNNER = """
import sys
namespace = {"__name__": "__main__"}
parts = sys.stdin.read().split("\\0")
for name, source in zip(("setup", "code", "check"), parts):
    exec(compile(source, f"<{name}>", "exec"), namespace)
"""


class ColdRunner:
    """A cold interpreter per job: no isolation beyond a process, just the start-up cost."""

    workers = os.cpu_count() or 1

    def protections(self) -> dict:
        return {}

    def accounting(self) -> dict:
        return {}

    def server(self) -> dict:  # /healthz: there is no fork server to ask
        return {"state": "cold interpreters"}

    async def run(self, job, **_) -> Verdict:
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-c",
            RUNNER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate("\0".join(src for _, src in job.parts).encode())
        status = "passed" if proc.returncode == 0 else "error"
        return Verdict(status, err.decode()[-200:], stdout=out.decode(), seconds=time.monotonic() - started)


COLD = os.environ.get("BENCH_RUNNER") == "cold"
app = create_app(
    Settings(data_dir=Path(os.environ.get("BENCH_DATA") or tempfile.mkdtemp()), use_cdn=False, execution=not COLD)
)
_inner = app.router.lifespan_context


@asynccontextmanager
async def _lifespan(a):
    async with _inner(a):
        if COLD:
            a.state.sandbox = ColdRunner()
        yield


app.router.lifespan_context = _lifespan
