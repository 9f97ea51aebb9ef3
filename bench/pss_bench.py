"""Memory of web server + fork server, process by process: the app with execution on
(bench/exec_app.py) on a fresh data directory, served, stopped and served again on the same one
(a restart: the database is migrated, alembic not loaded), each time after 20 drill pages.
Each process's /proc/PID/smaps_rollup, in MiB: RSS, PSS (shared pages split between the
processes that map them, so the sum counts torch's pages once), private dirty and clean,
anonymous.

    python bench/pss_bench.py [--starts 2] [--pages 20]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.exec_bench import healthy, tree  # noqa: E402
from tests.servers import free_port  # noqa: E402

FIELDS = ("Rss", "Pss", "Private_Dirty", "Private_Clean", "Anonymous")


def rollup(pid: int) -> dict[str, float]:
    """The process's smaps_rollup fields in MiB."""
    found = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        if name.rstrip(":") in FIELDS:
            found[name.rstrip(":")] = int(value) / 1024
    return found


def role(pid: int, server: int) -> str:
    """What the process is to the app: the web server, the fork server, the zygote or a job."""
    if pid == server:
        return "web server"
    parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    if parent == server:
        return "fork server"
    return "zygote" if role(parent, server) == "fork server" else "ready job process"


def table(server: int) -> tuple[list[str], float]:
    lines, total = [], 0.0
    for pid in tree(server):
        try:
            found, name = rollup(pid), role(pid, server)
        except OSError:
            continue  # it ended meanwhile
        total += found["Pss"]
        lines.append(f"| {name} | " + " | ".join(f"{found[f]:.1f}" for f in FIELDS) + " |")
    return lines, total


def served(data: str, pages: int) -> tuple[list[str], float]:
    port = free_port()
    env = {**os.environ, "BENCH_RUNNER": "sandbox", "BENCH_DATA": data}
    command = [sys.executable, "-m", "uvicorn", "bench.exec_app:app", "--port", str(port), "--log-level", "warning"]
    proc = healthy(subprocess.Popen(command, cwd=ROOT, env=env), port)
    try:
        time.sleep(3)  # the ready job processes are forked after the zygote reports
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for seed in range(1, pages + 1):
                http.get(f"/s/mlm-flash-forward/drill?rate=20&seed={seed}").raise_for_status()
        time.sleep(3)
        return table(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=2, help="the first start, then restarts")
    parser.add_argument("--pages", type=int, default=20)
    args = parser.parse_args()
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as data:
        for start in range(args.starts):
            lines, total = served(data, args.pages)
            print(f"\n{'first start' if start == 0 else 'restart'}: {total:.1f} MiB PSS in all\n")
            print("| process | " + " | ".join(FIELDS) + " |\n|---|" + "---|" * len(FIELDS))
            print("\n".join(lines))


if __name__ == "__main__":
    main()
