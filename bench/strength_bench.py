"""The full check-strength analysis of every bundled snippet: every eligible position, a few
mutants each, run on the sandbox's worker pool (as the server runs it in the background).

    python bench/strength_bench.py [--workers 2] [--survivors] [ID ...]

Prints a Markdown table: positions, mutants, wall time, the jobs' own time per worker, the 1-minute
load average at the end, caught / weak / blind / untested positions, surviving mutants and how many
of them look equivalent (a hint for the teacher, not a verdict); with --survivors, each survivor with
its hints and each position not caught by line and column.
"""

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.sandbox import Limits, Sandbox  # noqa: E402
from app.settings import PROJECT_DIR  # noqa: E402
from app.snippets.hints import reason_text  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402
from app.snippets.strength import check_strength  # noqa: E402


class Timed:
    """The sandbox, adding up how long its jobs took (the analysis's work, whatever the load)."""

    def __init__(self, sandbox):
        self.sandbox, self.workers, self.job_seconds = sandbox, sandbox.workers, 0.0

    async def run(self, job, **kwargs):
        verdict = await self.sandbox.run(job, **kwargs)
        self.job_seconds += verdict.seconds
        return verdict


async def main(args) -> None:
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    chosen = [s for s in library.all() if not args.ids or s.id in args.ids]
    sandbox = Sandbox(Limits(cpu_seconds=10, wall_seconds=20), workers=args.workers, uid_base=61200)
    await sandbox.start()
    print(f"{os.cpu_count()} cores, {args.workers} sandbox workers\n")
    print(
        "| snippet | positions | mutants | time | job-seconds / workers | load | caught | weak | blind | untested "
        "| survivors | likely equivalent |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    try:
        for snippet in chosen:
            timed = Timed(sandbox)
            report = await check_strength(snippet, timed)
            c, load = report.counts(), os.getloadavg()[0]
            print(
                f"| {snippet.id} | {len(report.positions)} | {len(report.results)} | {report.seconds:.1f} s | "
                f"{timed.job_seconds / args.workers:.1f} s | {load:.1f} | {c['caught']} | {c['weak']} | "
                f"{c['blind']} | {c['untested']} | {len(report.survivors)} | {sum(r.likely_equivalent for r in report.survivors)} |",
                flush=True,
            )
            if args.survivors:
                for r in report.survivors:
                    m = r.mutant
                    line = snippet.code.splitlines()[m.line - 1].strip()
                    hints = "; ".join(reason_text(reason) for reason in r.reasons)
                    print(f"    {m.line}:{m.column} {m.original!r} -> {m.replacement!r} survives: {line} ({hints})")
                for p in report.positions:
                    if p.state != "caught":
                        print(f"    position {p.line}:{p.column} {p.text!r} {p.state}", flush=True)
    finally:
        await sandbox.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--survivors", action="store_true")
    parser.add_argument("ids", nargs="*")
    asyncio.run(main(parser.parse_args()))
