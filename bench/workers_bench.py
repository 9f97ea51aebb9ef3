"""Verdicts per second over HTTP with 1 and with 2 uvicorn workers on PostgreSQL, and with 1 worker
on SQLite, in one run under the same load: L learners (distinct signed ids), each submitting the
在线 Softmax drill, every blank right, run in the sandbox, for S seconds per configuration.

    python bench/workers_bench.py [--seconds 20] [--learners 8]
"""

import argparse
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

from bench.exec_bench import form  # noqa: E402
from tests.postgres import PostgresServer  # noqa: E402
from tests.servers import free_port  # noqa: E402


def serve(workers: int, database_url: str | None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "CODECLOZE_DATA_DIR": tempfile.mkdtemp(),
        "CODECLOZE_SECRET_KEY": "bench-secret",
        "CODECLOZE_USE_CDN": "false",
        "CODECLOZE_QUEUE": "64",
        # the host's 2 cores shared by the workers' sandboxes: jobs in flight per worker
        "CODECLOZE_WORKERS": str(max(1, 2 // workers)),
    }
    if database_url:
        env["DATABASE_URL"] = database_url
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                time.sleep(3)  # every worker's fork server is up and warm
                return proc, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("server did not start")


def load(url: str, learners: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors: list[int] = []
    deadline = time.monotonic() + seconds

    def learner(n: int) -> None:
        body = form(n)
        with httpx.Client(base_url=url, timeout=30, headers={"accept": "application/json", "origin": url}) as http:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                response = http.post("/s/mlm-online-softmax/drill", data=body)
                if response.status_code == 200 and response.json()["result"]["run"]["status"] == "passed":
                    latencies.append(time.perf_counter() - started)
                else:
                    errors.append(response.status_code)

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(learners)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    return {
        "verdicts": len(latencies),
        "per_second": len(latencies) / elapsed,
        "errors": len(errors),
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[int(len(latencies) * 0.99) - 1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--learners", type=int, default=8)
    args = parser.parse_args()
    rows, before = [], os.getloadavg()[0]
    with PostgresServer() as postgres:
        for name, workers, url in [
            ("1 worker, SQLite", 1, None),
            ("1 worker, PostgreSQL", 1, postgres.new_database()),
            ("2 workers, PostgreSQL", 2, postgres.new_database()),
        ]:
            proc, base = serve(workers, url)
            try:
                rows.append((name, load(base, args.learners, args.seconds)))
            finally:
                proc.terminate()
                proc.wait(30)
    print(f"load average before: {before:.1f}; {args.learners} learners, {args.seconds:.0f} s each")
    print("| configuration | verdicts | verdicts/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['verdicts']} | {r['per_second']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['errors']} |")


if __name__ == "__main__":
    main()
