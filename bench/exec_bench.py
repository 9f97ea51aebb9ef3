"""From HTTP request to verdict for the 在线 Softmax drill: a cold `python` per submission versus
the sandbox, then 8 learners submitting at once, and the memory of web server + fork server.
In the same run, the floor (bench/fork_floor.py: the check in a warm process, and a bare
fork + run + reap of a torch process), the same job through the app's own sandbox alone (in
this process, no web server: what the web path adds is the difference) and the CPU per verdict
over all server processes (web server, fork server, zygote, job processes, reaped children
included).

    python bench/exec_bench.py [--seconds 30] [--requests 100] [--cold 10] [--learners 8]
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.learn.drills import random_drill  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402
from tests.servers import free_port  # noqa: E402


def drill_of(seed: int):
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    return random_drill(library.get("mlm-online-softmax"), 20, seed)


def form(seed: int) -> dict:
    drill = drill_of(seed)
    return {"version": drill.snippet.version, "rate": "20", "seed": str(seed), **{h.key: h.answer for h in drill.holes}}


def sandbox_alone(seed: int, requests: int, submitters: int, seconds: float) -> tuple[list[float], int]:
    """The job of `form(seed)`'s verdict through the app's own sandbox (its settings, in this
    process, no web server): sequential times, and jobs done by `submitters` in `seconds`. What
    the web path adds to a verdict is the HTTP figure minus this one."""
    return asyncio.run(_alone(seed, requests, submitters, seconds))


async def _alone(seed: int, requests: int, submitters: int, seconds: float) -> tuple[list[float], int]:
    from app.engine.score import splice
    from app.main import make_sandbox
    from app.sandbox import SandboxBusy
    from app.settings import Settings
    from app.snippets.jobs import job_for

    drill = drill_of(seed)
    job = job_for(drill.snippet, splice(drill.snippet.code, list(drill.holes), {h.key: h.answer for h in drill.holes}))

    async def timed(owner: str) -> float:
        began = time.perf_counter()
        verdict = await sandbox.run(job, owner=owner, address="127.0.0.1")
        assert verdict.status == "passed", verdict
        return (time.perf_counter() - began) * 1000

    async def submitter(n: int, end: float, done: list) -> None:
        while time.monotonic() < end:
            try:
                done.append(await timed(f"learner-{n}"))
            except SandboxBusy:
                await asyncio.sleep(0.01)

    with tempfile.TemporaryDirectory() as data:
        sandbox = make_sandbox(Settings(data_dir=Path(data), use_cdn=False))
        await sandbox.start()
        try:
            for _ in range(10):
                await timed("warm")
            times = [await timed("alone") for _ in range(requests)]
            done: list[float] = []
            end = time.monotonic() + seconds
            await asyncio.gather(*(submitter(n, end, done) for n in range(submitters)))
        finally:
            await sandbox.close()
    return times, len(done)


def serve(runner: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "BENCH_RUNNER": runner, "BENCH_DATA": tempfile.mkdtemp()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "bench.exec_app:app", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    return healthy(proc, port)


def healthy(proc: subprocess.Popen, port: int, seconds: float = 60) -> subprocess.Popen:
    """`proc` once the server on `port` answers /healthz."""
    for _ in range(int(seconds * 10)):
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz")
            return proc
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def submit(http: httpx.Client, body: dict) -> float:
    started = time.perf_counter()
    response = http.post("/s/mlm-online-softmax/drill", data=body, headers={"accept": "application/json"})
    run = response.json()["result"]["run"]
    assert run and run["status"] == "passed", response.text
    return (time.perf_counter() - started) * 1000


def sequential(url: str, count: int, body: dict) -> list[float]:
    with httpx.Client(base_url=url, timeout=60, headers={"origin": url}) as http:
        submit(http, body)  # warm
        return [submit(http, body) for _ in range(count)]


def concurrent(url: str, learners: int, seconds: float, body: dict) -> tuple[list[float], int]:
    times, errors, stop = [], [0], time.monotonic() + seconds

    def learner() -> None:
        with httpx.Client(base_url=url, timeout=60, headers={"origin": url}) as http:
            while time.monotonic() < stop:
                try:
                    times.append(submit(http, body))
                except (AssertionError, httpx.HTTPError, KeyError, ValueError):
                    errors[0] += 1

    threads = [threading.Thread(target=learner) for _ in range(learners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times, errors[0]


def tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        try:
            todo += [
                int(c)
                for t in os.listdir(f"/proc/{p}/task")
                for c in Path(f"/proc/{p}/task/{t}/children").read_text().split()
            ]
        except OSError:
            pass
    return pids


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime over a process tree: children reaped by any of them
    (every job process, by the zygote) are in their parent's cutime/cstime."""
    ticks = 0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(x) for x in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def floor(jobs: int) -> dict:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fork_floor.py"), "--jobs", str(jobs)],
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def tree_memory_mib(pid: int) -> dict[str, float]:
    """MiB of a process and all its descendants but a background FSRS fit: RSS and PSS (which
    counts shared torch pages once), the web process's own PSS; and the PSS of such a fit when
    one runs (a transient process of its own, neither the web server nor the fork server)."""
    kib = {"rss": 0, "pss": 0, "web": 0, "fit": 0}
    for p in tree(pid):
        try:
            fit = b"app.memory.fitting" in Path(f"/proc/{p}/cmdline").read_bytes()
            fields = dict(line.split()[:2] for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()[1:])
        except OSError:
            continue
        rss, pss = int(fields["Rss:"]), int(fields["Pss:"])
        kib["fit" if fit else "pss"] += pss
        kib["rss"] += 0 if fit else rss
        kib["web"] += pss if p == pid else 0
    return {k: v / 1024 for k, v in kib.items()}


def memory_without_fit(pid: int, seconds: float = 120) -> dict[str, float]:
    """`tree_memory_mib` once no background fit runs (up to `seconds`): a fit maps the same
    torch library pages as the zygote and so takes a share of their PSS, which would make the
    servers' figure look smaller than it is. `fit` says what the last look found running."""
    end = time.monotonic() + seconds
    while (memory := tree_memory_mib(pid))["fit"] and time.monotonic() < end:
        time.sleep(0.5)
    return memory


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, ms: list[float], note: str = "") -> str:
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {pct(ms, 0.99):.1f} | {note} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--cold", type=int, default=10)
    parser.add_argument("--learners", type=int, default=8)
    args = parser.parse_args()
    body = form(1)
    cold_port, port = free_port(), free_port()
    cold = serve("cold", cold_port)
    try:
        cold_ms = sequential(f"http://127.0.0.1:{cold_port}", args.cold, body)
    finally:
        cold.terminate()
        cold.wait()
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}", file=sys.stderr)
    base = floor(args.requests)
    alone_ms, alone_jobs = sandbox_alone(1, args.requests, args.learners, args.seconds)
    warm = serve("sandbox", port)
    try:
        sequential(f"http://127.0.0.1:{port}", 10, body)
        cpu_before = tree_cpu_seconds(warm.pid)
        warm_ms = sequential(f"http://127.0.0.1:{port}", args.requests, body)
        cpu_ms = (tree_cpu_seconds(warm.pid) - cpu_before) / args.requests * 1e3
        idle = memory_without_fit(warm.pid)
        cpu_before = tree_cpu_seconds(warm.pid)
        load_ms, errors = concurrent(f"http://127.0.0.1:{port}", args.learners, args.seconds, body)
        load_cpu_ms = (tree_cpu_seconds(warm.pid) - cpu_before) / max(1, len(load_ms)) * 1e3
        loaded = memory_without_fit(warm.pid)
    finally:
        warm.terminate()
        warm.wait()
    speedup = statistics.median(cold_ms) / statistics.median(warm_ms)
    print("| case | requests | median ms | p99 ms | note |\n|---|---|---|---|---|")
    print(line("(a) cold python per submission", cold_ms))
    print(line("(b) sandbox", warm_ms, f"{speedup:.0f}x faster than (a)"))
    print(
        line(
            f"{args.learners} learners for {args.seconds:.0f} s, sandbox",
            load_ms,
            f"{len(load_ms) / args.seconds:.0f} verdicts/s, {errors} errors",
        )
    )
    print(line("(c) sandbox alone, the same job (the app's sandbox in process, no web server)", alone_ms))
    alone_rate = alone_jobs / args.seconds
    print(
        f"| {args.learners} submitters for {args.seconds:.0f} s, sandbox alone | {alone_jobs} | | | {alone_rate:.0f} jobs/s |"
    )
    print(
        f"\n(b) − (c): +{statistics.median(warm_ms) - statistics.median(alone_ms):.1f} ms; verdicts/s with "
        f"{args.learners} learners / sandbox alone: {len(load_ms) / max(1, alone_jobs):.2f}x"
    )
    ratio = statistics.median(warm_ms) / base["fork_median_ms"]
    print(
        f"\nfloor, same run: check in a warm process {base['check_cpu_ms']:.1f} ms CPU; bare fork + run + reap "
        f"{base['fork_median_ms']:.1f} ms median, {base['fork_cpu_ms']:.1f} ms CPU"
    )
    print(
        f"(b) / floor: {ratio:.2f}x; CPU per verdict, all server processes: {cpu_ms:.1f} ms sequential, "
        f"{load_cpu_ms:.1f} ms with {args.learners} learners"
    )
    print(f"load after: {Path('/proc/loadavg').read_text().strip()}")
    print(
        f"\nweb server + fork server memory (measured with no background FSRS fit running, which would take a "
        f"share of the torch pages): idle RSS {idle['rss']:.0f} MiB / PSS {idle['pss']:.0f} MiB (web process "
        f"{idle['web']:.0f}); after load RSS {loaded['rss']:.0f} MiB / PSS {loaded['pss']:.0f} MiB (web process "
        f"{loaded['web']:.0f}); a fit still running at the time: {idle['fit']:.0f} / {loaded['fit']:.0f} MiB PSS"
    )


if __name__ == "__main__":
    main()
