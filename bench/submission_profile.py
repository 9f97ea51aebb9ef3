"""Where a token-scored submission's web-process CPU goes: a real uvicorn (execution off, a fresh
SQLite), one returning learner per client posting 20 % masks of the Flash Attention Forward drill
as the browser does (htmx), every other blank wrong. First the CPU per submission from
/proc/PID/stat with nothing else attached, beside the HTTP floor of the same server and clients:
the same bodies posted to a static twin (bench/web_app.py: the app's own middlewares, an answer
of the mean size, nothing stored). Then py-spy samples the submissions (threads holding the GIL:
CPU, not waits); the top functions by own and by inclusive samples are printed as Markdown. The
CPU is also given per thread: the event loop's (HTTP, grading, rendering) and the others' (the
busiest is the attempt writer).

    python bench/submission_profile.py [--seconds 15] [--clients 1] [--raw out.txt]
"""

import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.learn.drills import random_drill  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402
from bench.exec_bench import healthy  # noqa: E402
from tests.servers import free_port  # noqa: E402

SNIPPET, RATE = "mlm-flash-forward", 20
SUBMIT, TWIN = f"/s/{SNIPPET}/drill", "/bench/static/token"  # the twin: bench/web_app.py
PY_SPY = shutil.which("py-spy", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}") or "py-spy"
WRONG = ("m_{}", "x[{}]", "k_j * {}", "torch.max(s, {})", "{}", "(", "dim=-{}", "l_i + {}")


def bodies(count: int = 200) -> list[str]:
    """Forms of `count` masks, every other blank wrong in varied text (none repeats)."""
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    snippet, rng = library.get(SNIPPET), random.Random(7)
    forms = []
    for seed in range(1, count + 1):
        holes = random_drill(snippet, RATE, seed).holes
        answers = {
            h.key: h.answer if i % 2 else rng.choice(WRONG).format(rng.randrange(1000)) for i, h in enumerate(holes)
        }
        forms.append(urlencode({"version": snippet.version, "rate": RATE, "seed": seed, **answers}))
    return forms


def serve(port: int, data: str) -> subprocess.Popen:
    """The app as served by default (a log line per submission, INFO) with its static twins
    (bench/web_app.py), its log in data/server.log."""
    env = {**os.environ, "BENCH_DATA": data, "CODECLOZE_EXECUTION": "false"}
    command = [sys.executable, "-m", "uvicorn", "bench.web_app:app", "--port", str(port), "--no-proxy-headers"]
    log = Path(data, "server.log")
    with log.open("wb") as stderr:
        proc = subprocess.Popen([*command, "--log-level", "warning"], cwd=ROOT, env=env, stderr=stderr)
    try:
        return healthy(proc, port)
    except RuntimeError:
        proc.kill()
        raise RuntimeError(f"server did not start:\n{log.read_text(errors='replace')[-2000:]}") from None


def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User + system CPU of process `pid`, or of its thread `tid`."""
    path = f"/proc/{pid}/task/{tid}/stat" if tid else f"/proc/{pid}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each thread of `pid` (one that ended meanwhile is left out)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            out[int(tid)] = cpu_seconds(pid, int(tid))
        except OSError:
            continue
    return out


def by_thread(pid: int, before: dict[int, float], after: dict[int, float], count: int) -> str:
    """The event loop's thread (the main one) and the others, busiest first, in ms per submission:
    the busiest other is the attempt writer."""
    spent = {tid: after[tid] - before.get(tid, 0.0) for tid in after}
    main = spent.pop(pid, 0.0)
    others = sorted(spent.values(), reverse=True)
    return f"event loop {1000 * main / count:.2f} ms, other threads " + ", ".join(
        f"{1000 * s / count:.2f}" for s in others if s > 0
    )


class Spent(NamedTuple):
    count: int  # requests answered
    seconds: float  # the web process's CPU over them
    wall: float
    threads: str  # the CPU by thread (`by_thread`)

    @property
    def ms(self) -> float:
        return 1000 * self.seconds / self.count


def spent(pid: int, run) -> Spent:
    """The web process's CPU over `run()`, which returns the requests it made."""
    before, threads, started = cpu_seconds(pid), thread_cpu(pid), time.monotonic()
    count = run()
    cpu, wall = cpu_seconds(pid) - before, time.monotonic() - started
    return Spent(count, cpu, wall, by_thread(pid, threads, thread_cpu(pid), count))


def load(url: str, forms: list[str], clients: int, seconds: float, path: str = SUBMIT) -> int:
    """Submissions to `path` answered 200 by `clients` learners posting for `seconds`."""
    done, stop = [0] * clients, time.monotonic() + seconds
    headers = {"origin": url, "hx-request": "true", "content-type": "application/x-www-form-urlencoded"}

    def learner(n: int) -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
            http.get(f"/s/{SNIPPET}/drill?rate={RATE}&seed=1")  # a cookie: a returning learner from now on
            i = n
            while time.monotonic() < stop:
                response = http.post(path, content=forms[i % len(forms)])
                assert response.status_code == 200, response.text[:300]
                done[n], i = done[n] + 1, i + clients

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done)


def top(raw: Path, count: int = 25) -> str:
    """Own samples per function, and inclusive samples per project function, from py-spy's
    collapsed stacks."""
    own, inclusive, total = collections.Counter(), collections.Counter(), 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():  # the tail of a frame whose name held a newline (a module docstring)
            continue
        frames, n = stack.split(";"), int(n)
        total += n
        own[_short(frames[-1])] += n
        for frame in {_short(f) for f in frames if " (app/" in f}:  # the project's own functions
            inclusive[frame] += n
    rows = ["| own % | function | | inclusive % | project function |", "|---|---|---|---|---|"]
    for (f1, n1), (f2, n2) in zip(own.most_common(count), inclusive.most_common(count)):
        rows.append(f"| {100 * n1 / total:.1f} | `{f1}` | | {100 * n2 / total:.1f} | `{f2}` |")
    return "\n".join(rows)


def _short(frame: str) -> str:
    """`function (file:line)` as function (package/file); lines dropped so a function is one row."""
    name, _, where = frame.partition(" (")
    path = where.rsplit(":", 1)[0]
    for marker in ("site-packages/", "lib/python3.11/", str(ROOT) + "/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{name} ({path})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--raw", type=Path, help="keep py-spy's collapsed stacks here")
    args = parser.parse_args()
    forms, port = bodies(), free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        proc = serve(port, data)
        try:
            load(url, forms, args.clients, 3)  # warm: caches, the learner's rows, the JIT-less paths
            load(url, forms, args.clients, 2, TWIN)  # and the twin, while the class fold catches up
            floor = spent(proc.pid, lambda: load(url, forms, args.clients, args.seconds, TWIN))
            cpu = spent(proc.pid, lambda: load(url, forms, args.clients, args.seconds))
            load_avg = os.getloadavg()[0]
            print(
                f"{args.clients} client(s): {cpu.count} submissions in {cpu.wall:.1f} s ({cpu.count / cpu.wall:.0f}/s), "
                f"web process CPU {cpu.ms:.2f} ms per submission (load {load_avg:.1f}); by thread: {cpu.threads}; "
                f"HTTP floor (the same bodies to the static twin) {floor.ms:.2f} ms per request, "
                f"the submission's own {cpu.ms - floor.ms:.2f} ms"
            )
            raw = args.raw or Path(tempfile.mkstemp(suffix=".txt")[1])
            spy = subprocess.Popen(
                [PY_SPY, "record", "--pid", str(proc.pid), "--rate", "250", "--format", "raw", "--gil"]
                + ["--duration", str(int(args.seconds)), "--nonblocking", "--output", str(raw)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            load(url, forms, args.clients, args.seconds)
            spy.wait(60)
            print(top(raw))
            if args.raw is None:
                raw.unlink()  # kept only where --raw asks for it
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
