"""Sandbox latency and memory: a cold interpreter per job versus the fork server, and an
honest job's verdict time idle versus beside a hostile job (busy children in new sessions).

    python bench/sandbox_bench.py [--seconds 30] [--jobs 200] [--cold 10] [--submitters 8]

The job is an online-softmax exercise (4x8 tensor, Python loops) checked against
torch.softmax. Prints Markdown tables.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.sandbox import Job, Sandbox, SandboxBusy  # noqa: E402

SETUP = "import torch, math"
CODE = """
def online_softmax(x):
    out = torch.empty_like(x)
    for r in range(x.shape[0]):
        m, d = float("-inf"), 0.0
        for v in x[r].tolist():
            m_new = max(m, v)
            d = d * math.exp(m - m_new) + math.exp(v - m_new)
            m = m_new
        out[r] = torch.tensor([math.exp(v - m) / d for v in x[r].tolist()])
    return out
"""
CHECK = """
x = torch.randn(4, 8)
assert torch.allclose(online_softmax(x), torch.softmax(x, dim=-1), atol=1e-6), "mismatch"
"""
JOB = Job(parts=(("setup", SETUP), ("code", CODE), ("check", CHECK)))
# 0.2 s of CPU in the job itself: what a fair share of the CPU shows up in.
BUSY = Job(
    parts=(
        ("setup", "import time"),
        ("code", "t = time.process_time()\nwhile time.process_time() - t < 0.2:\n    pass"),
        ("check", ""),
    )
)
HOSTILE = Job(
    parts=(
        ("setup", ""),
        (
            "code",
            (
                Path(__file__).resolve().parents[1] / "tests" / "sandbox" / "corpus" / "busy_children_new_sessions.py"
            ).read_text(),
        ),
        ("check", ""),
    )
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(name: str, ms: list[float], note: str = "") -> str:
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {percentile(ms, 0.99):.1f} | {max(ms):.1f} | {note} |"


def cold(runs: int) -> list[float]:
    script = "\n".join((SETUP, CODE, CHECK))
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", script], check=True, capture_output=True)
        times.append((time.perf_counter() - began) * 1e3)
    return times


async def timed(sandbox: Sandbox, job: Job = JOB, owner: str | None = None) -> float:
    began = time.perf_counter()
    verdict = await sandbox.run(job, owner=owner)
    if verdict.status != "passed":
        raise RuntimeError(verdict)
    return (time.perf_counter() - began) * 1e3


async def concurrent(sandbox: Sandbox, submitters: int, seconds: float) -> tuple[list[float], int, int]:
    times, busy, end = [], 0, time.monotonic() + seconds
    peak = 0

    async def submitter():
        nonlocal busy
        while time.monotonic() < end:
            try:
                times.append(await timed(sandbox))
            except SandboxBusy:
                busy += 1
                await asyncio.sleep(0.01)

    async def sampler():
        nonlocal peak
        while time.monotonic() < end:
            peak = max(peak, (await sandbox.status())["memory"]["pss_bytes"])
            await asyncio.sleep(1)

    await asyncio.gather(sampler(), *(submitter() for _ in range(submitters)))
    return times, busy, peak


async def beside_hostile(sandbox: Sandbox, job: Job, runs: int) -> tuple[list[float], list[float]]:
    """The job's verdict times idle, then while a hostile job is always running."""
    idle = [await timed(sandbox, job, "honest") for _ in range(runs)]
    stop = asyncio.Event()

    async def attacker():
        while not stop.is_set():
            await sandbox.run(HOSTILE, owner="hostile")

    attacking = asyncio.ensure_future(attacker())
    await asyncio.sleep(0.5)
    loaded = [await timed(sandbox, job, "honest") for _ in range(runs)]
    stop.set()
    await attacking
    return idle, loaded


def rss_of_self() -> int:
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS:")).split()[1]) * 1024


async def main(args) -> None:
    print(f"cold interpreter x{args.cold} ...", file=sys.stderr)
    cold_ms = cold(args.cold)
    sandbox = Sandbox(workers=args.workers, cgroups=not args.no_cgroups)
    began = time.perf_counter()
    await sandbox.start()
    start_s = time.perf_counter() - began
    for _ in range(5):
        await timed(sandbox)  # warm the client side
    print(f"sandbox sequential x{args.jobs} ...", file=sys.stderr)
    sequential = [await timed(sandbox) for _ in range(args.jobs)]
    idle = (await sandbox.status())["memory"]
    print(f"{args.submitters} submitters for {args.seconds:g} s ...", file=sys.stderr)
    loaded, busy, peak_pss = await concurrent(sandbox, args.submitters, args.seconds)
    print("honest jobs beside a hostile one ...", file=sys.stderr)
    fair = {
        name: await beside_hostile(sandbox, job, runs)
        for name, job, runs in (("drill check", JOB, 50), ("0.2 s of CPU", BUSY, 20))
    }
    accounting = sandbox.accounting()
    await sandbox.close()
    mib = lambda b: f"{b / 2**20:.0f} MiB"
    print(
        f"\nfork server start: {start_s:.1f} s; workers {sandbox.workers}; {os.cpu_count()} CPUs; "
        f"load after: {Path('/proc/loadavg').read_text().strip()}\n"
    )
    print("| measurement | jobs | median ms | p99 ms | max ms | note |")
    print("|---|---|---|---|---|---|")
    print(row("cold `python -I -c` per job", cold_ms))
    print(row("sandbox, sequential", sequential))
    print(
        row(
            f"sandbox, {args.submitters} concurrent submitters",
            loaded,
            f"{len(loaded) / args.seconds:.0f} jobs/s, {busy} busy",
        )
    )
    print(
        f"\n| honest job ({accounting.get('tree_limits')}) | idle median ms | beside a hostile job, median ms "
        f"| ratio |\n|---|---|---|---|"
    )
    for name, (idle_ms, hostile_ms) in fair.items():
        ratio = statistics.median(hostile_ms) / statistics.median(idle_ms)
        print(f"| {name} | {statistics.median(idle_ms):.1f} | {statistics.median(hostile_ms):.1f} | {ratio:.2f}x |")
    print("\n| memory | RSS (sum) | PSS (sum) |\n|---|---|---|")
    print(
        f"| fork server + zygote + ready job processes ({idle['processes']} processes), idle "
        f"| {mib(idle['rss_bytes'])} | {mib(idle['pss_bytes'])} |"
    )
    print(f"| fork server + zygote only, idle | {mib(idle['roots_rss_bytes'])} | |")
    print(f"| all of the above, peak under load | | {mib(peak_pss)} |")
    print(f"| this client process (no web framework) | {mib(rss_of_self())} | |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--cold", type=int, default=10)
    parser.add_argument("--submitters", type=int, default=8)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-cgroups", action="store_true", help="poll /proc instead (the fallback)")
    asyncio.run(main(parser.parse_args()))
