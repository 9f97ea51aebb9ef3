"""Memory of web server + fork server, process by process: the app as ./scripts/serve starts it
(execution on, the bundled course) on a fresh data directory, served, stopped and served again on
the same one (a restart: the database is migrated, alembic not loaded), each time after 20 drill
pages and 100 learners' verdicts (each learner a cookie of their own, answers right, so each job
runs in the sandbox). Each process's /proc/PID/smaps_rollup, in MiB: RSS, PSS (shared pages
split between the processes that map them, so the sum counts torch's pages once), private dirty
and clean, anonymous. A background FSRS fit is a transient process of its own and not counted.

    python bench/pss_bench.py [--starts 2] [--pages 20] [--learners 100]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.class_at_once import SNIPPET, learners  # noqa: E402
from bench.exec_bench import tree  # noqa: E402
from tests.servers import start_server  # noqa: E402

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
            if b"app.memory.fitting" in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue  # a fit: transient, bounded to one per host, not the servers' memory
            found, name = rollup(pid), role(pid, server)
        except OSError:
            continue  # it ended meanwhile
        total += found["Pss"]
        lines.append(f"| {name} | " + " | ".join(f"{found[f]:.1f}" for f in FIELDS) + " |")
    return lines, total


def served(data: Path, pages: int, count: int) -> tuple[list[str], float]:
    proc, url = start_server(data)
    try:
        time.sleep(3)  # the ready job processes are forked after the zygote reports
        with httpx.Client(base_url=url, timeout=30) as http:
            for seed in range(1, pages + 1):
                http.get(f"/s/{SNIPPET}/drill?rate=20&seed={seed}").raise_for_status()
        learners(url, count)
        time.sleep(3)
        return table(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=2, help="the first start, then restarts")
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--learners", type=int, default=100)
    args = parser.parse_args()
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as data:
        for start in range(args.starts):
            lines, total = served(Path(data), args.pages, args.learners)
            print(f"\n{'first start' if start == 0 else 'restart'}: {total:.1f} MiB PSS in all\n")
            print("| process | " + " | ".join(FIELDS) + " |\n|---|" + "---|" * len(FIELDS))
            print("\n".join(lines))


if __name__ == "__main__":
    main()
