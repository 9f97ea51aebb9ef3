"""How long each bundled snippet's reference code and check take in the sandbox, job by job: what a
learner who answers everything right waits for in the sandbox, per snippet (the verdict's run time,
fork to exit, and the whole call).

    python bench/course_jobs.py [--runs 10] [--snippets ex5-flash-backward,mlm-online-softmax]

One sandbox worker, cgroups as the app uses them, after one job to warm the client. Prints a
Markdown table: p50 and max of the run (what the job itself took) and of the call.
"""

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.db.snippet_rows import SnippetRows  # noqa: E402
from app.learn.recording import attempt_store  # noqa: E402
from app.sandbox import Sandbox  # noqa: E402
from app.snippets.jobs import job_for  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402

SNIPPETS = Path(__file__).resolve().parents[1] / "snippets"


def bundled(ids: list[str] | None):
    store = attempt_store("sqlite://")
    library = SnippetLibrary(SnippetRows(store.engine))
    library.load_dir(SNIPPETS)
    found = library.all(include_hidden=True)
    return [s for s in found if not ids or s.id in ids]


async def timed(sandbox: Sandbox, snippet, runs: int) -> tuple[list[float], list[float]]:
    run_ms, call_ms = [], []
    for _ in range(runs):
        start = time.perf_counter()
        verdict = await sandbox.run(job_for(snippet, snippet.code))
        call_ms.append((time.perf_counter() - start) * 1000)
        if not verdict.passed:
            raise SystemExit(f"{snippet.id}: the reference did not pass: {verdict.status} {verdict.message}")
        run_ms.append(verdict.seconds * 1000)
    return run_ms, call_ms


async def main(args) -> None:
    sandbox = Sandbox(workers=1)
    await sandbox.start()
    try:
        snippets = bundled(args.snippets.split(",") if args.snippets else None)
        await sandbox.run(job_for(snippets[0], snippets[0].code))
        print("| snippet | run p50 ms | run max ms | call p50 ms | call max ms |")
        print("|---|---|---|---|---|")
        for snippet in snippets:
            run_ms, call_ms = await timed(sandbox, snippet, args.runs)
            print(
                f"| {snippet.id} | {statistics.median(run_ms):.0f} | {max(run_ms):.0f} |"
                f" {statistics.median(call_ms):.0f} | {max(call_ms):.0f} |"
            )
    finally:
        await sandbox.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--snippets", default="")
    asyncio.run(main(parser.parse_args()))
