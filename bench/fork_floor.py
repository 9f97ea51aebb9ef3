"""The floor under any sandboxed verdict: in a process that imported torch as the zygote does,
(1) the check run in place, (2) a bare fork + run + reap per job, no confinement at all.

    python bench/fork_floor.py [--jobs 200]     # prints one JSON object

Run by bench/exec_bench.py in the same run as the HTTP measurements.
"""

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.sandbox import runtime  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402


def drill_parts() -> list[tuple[str, str]]:
    """The 在线 Softmax drill with every blank right: what the HTTP benchmark's jobs run."""
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    snippet = library.get("mlm-online-softmax")
    return [("setup", snippet.setup), ("code", snippet.code), ("check", snippet.check)]


def run_parts(parts) -> None:
    """As a job runs them, its output kept (a job's goes to a pipe the server reads)."""
    scope = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for name, src in parts:
            exec(compile(src, f"<{name}>", "exec"), scope)


def cpu(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def in_place(parts, jobs: int) -> float:
    """CPU ms of one check in a warm process."""
    before = cpu(resource.RUSAGE_SELF)
    for _ in range(jobs):
        run_parts(parts)
    return (cpu(resource.RUSAGE_SELF) - before) / jobs * 1e3


def forked(parts, jobs: int) -> tuple[list[float], float]:
    """Wall ms of fork + run + reap per job, and CPU ms per job over parent and child."""
    times = []
    before = cpu(resource.RUSAGE_SELF) + cpu(resource.RUSAGE_CHILDREN)
    for _ in range(jobs):
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                run_parts(parts)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if status:
            raise RuntimeError(f"the check failed in the forked child ({status})")
        times.append((time.perf_counter() - began) * 1e3)
    spent = cpu(resource.RUSAGE_SELF) + cpu(resource.RUSAGE_CHILDREN) - before
    return times, spent / jobs * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=200)
    args = parser.parse_args()
    parts = drill_parts()
    runtime.import_runtime()
    runtime.warm_up()
    run_parts(parts)
    check_cpu_ms = in_place(parts, args.jobs)
    times, fork_cpu_ms = forked(parts, args.jobs)
    print(
        json.dumps(
            {
                "check_cpu_ms": check_cpu_ms,
                "fork_median_ms": statistics.median(times),
                "fork_cpu_ms": fork_cpu_ms,
                "jobs": args.jobs,
            }
        )
    )


if __name__ == "__main__":
    main()
