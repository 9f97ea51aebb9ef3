"""The full check-strength analysis of every bundled snippet: every eligible position, a few
mutants each, run on the sandbox's worker pool (as the server runs it in the background).

    python bench/strength_bench.py [--workers 2] [--survivors] [--dir FOLDER] [--states OUT.json] [ID ...]

Prints a Markdown table: positions, mutants, wall time, the jobs' own time per worker, the 1-minute
load average at the end, caught / weak / blind / untested positions, surviving mutants and how many
of them look equivalent (a hint for the teacher, not a verdict); with --survivors, each survivor with
its hints and each position not caught by line and column. `--dir bench/snippets` analyses the
benchmark's own ~500-position class instead of the bundled course; `--states` writes every position's
state and every mutant's status, to hold two ways of running the analysis to the same answer.
`--learner` adds a learner submitting the 在线 Softmax drill's reference every 0.25 s beside each analysis
and prints their verdict times (median, p95, max), against the same learner on an idle sandbox first.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.sandbox import Limits, Sandbox  # noqa: E402
from app.settings import PROJECT_DIR  # noqa: E402
from app.snippets.hints import reason_text  # noqa: E402
from app.snippets.jobs import job_for  # noqa: E402
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


class Learner:
    """A learner's verdicts, one every 0.25 s, timed from request to verdict, until stopped."""

    def __init__(self, sandbox, snippet):
        self.sandbox, self.job, self.times, self.running = sandbox, job_for(snippet, snippet.code), [], True

    async def submit(self) -> None:
        while self.running:
            started = time.monotonic()
            await self.sandbox.run(self.job, owner="learner", address="203.0.113.9")
            self.times.append(time.monotonic() - started)
            await asyncio.sleep(0.25)

    def summary(self) -> str:
        t = sorted(self.times)
        p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
        return f"{len(t)} verdicts: median {1000 * statistics.median(t):.0f} ms, p95 {1000 * p95:.0f} ms, max {1000 * t[-1]:.0f} ms"


async def beside(learner_snippet, sandbox, work):
    """`work` awaited with a learner submitting beside it; what the learner saw."""
    learner = Learner(sandbox, learner_snippet)
    task = asyncio.create_task(learner.submit())
    try:
        result = await work
    finally:
        learner.running = False
        await task
    return result, learner.summary()


async def main(args) -> None:
    library = SnippetLibrary()
    library.load_dir(args.dir)
    chosen = [s for s in library.all() if not args.ids or s.id in args.ids]
    sandbox = Sandbox(Limits(cpu_seconds=10, wall_seconds=20), workers=args.workers, uid_base=61200)
    await sandbox.start()
    print(f"{os.cpu_count()} cores, {args.workers} sandbox workers\n")
    print(
        "| snippet | positions | mutants | time | job-seconds / workers | load | caught | weak | blind | untested "
        "| survivors | likely equivalent |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    states = {}
    bundled = SnippetLibrary()
    bundled.load_dir(PROJECT_DIR / "snippets")
    drill = bundled.get("mlm-online-softmax")
    try:
        if args.learner:
            _, idle = await beside(drill, sandbox, asyncio.sleep(5))
            print(f"    learner alone: {idle}")
        for snippet in chosen:
            timed = Timed(sandbox)
            if args.learner:
                report, seen = await beside(drill, sandbox, check_strength(snippet, timed))
            else:
                report, seen = await check_strength(snippet, timed), None
            states[snippet.id] = [[p.span_index, p.state, [r.status for r in p.results]] for p in report.positions]
            c, load = report.counts(), os.getloadavg()[0]
            print(
                f"| {snippet.id} | {len(report.positions)} | {len(report.results)} | {report.seconds:.1f} s | "
                f"{timed.job_seconds / args.workers:.1f} s | {load:.1f} | {c['caught']} | {c['weak']} | "
                f"{c['blind']} | {c['untested']} | {len(report.survivors)} | {sum(r.likely_equivalent for r in report.survivors)} |",
                flush=True,
            )
            if seen:
                print(f"    learner beside it: {seen}", flush=True)
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
    if args.states:
        args.states.write_text(json.dumps(states, indent=0))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--survivors", action="store_true")
    parser.add_argument("--dir", type=Path, default=PROJECT_DIR / "snippets", help="the snippets to analyse")
    parser.add_argument("--learner", action="store_true", help="time a learner's verdicts beside each analysis")
    parser.add_argument("--states", type=Path, help="write each position's state and its mutants' statuses here")
    parser.add_argument("ids", nargs="*")
    asyncio.run(main(parser.parse_args()))
