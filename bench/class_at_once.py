"""A class submits at once: established learners of one class behind one address (a lecture hall's
NAT), each with a cookie and an attempt of their own, press Submit on the Flash Attention Forward
drill at 30 % within a few seconds, execution on, one server as ./scripts/serve starts it.
Reports, per class size, how many verdicts arrived, how many were refused ("busy, retry") and
the p50 / p95 / max time to a response.

    python bench/class_at_once.py [--learners 60,150,300] [--within 5] [--web-workers 2 --postgres]

With --web-workers N (and --postgres, which several workers need), N uvicorn workers share the
host's cores: each worker's sandbox gets cores / N of them.
"""

import argparse
import concurrent.futures
import contextlib
import os
import random
import statistics
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
from tests.postgres import PostgresServer  # noqa: E402
from tests.servers import running_server  # noqa: E402

SNIPPET, RATE = "mlm-flash-forward", 30


def forms(count: int) -> list[dict]:
    """Each learner's right answers to a mask of their own."""
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    snippet = library.get(SNIPPET)
    out = []
    for seed in range(count):
        drill = random_drill(snippet, RATE, seed)
        out.append(
            {"version": snippet.version, "rate": str(RATE), "seed": str(seed), **{h.key: h.answer for h in drill.holes}}
        )
    return out


# Every request on a connection of its own, as a browser's after a minute's typing (the server
# closes an idle keep-alive connection after 5 s); one transport for all, so the load generator does
# not spend the machine's CPU building a TLS context per client. Clients are not closed: that would
# close the shared transport.
FRESH_CONNECTIONS = httpx.HTTPTransport(limits=httpx.Limits(max_connections=None, max_keepalive_connections=0))


def client(url: str, cookies=None) -> httpx.Client:
    return httpx.Client(
        base_url=url,
        timeout=120,
        headers={"origin": url, "accept": "application/json"},
        cookies=cookies,
        transport=FRESH_CONNECTIONS,
    )


def learners(url: str, count: int) -> list[tuple]:
    """Established learners: each has a cookie and one verdict already."""
    out = []
    for form in forms(count):
        http = client(url)
        while http.post(f"/s/{SNIPPET}/drill", data=form).status_code != 200:
            time.sleep(0.5)
        out.append((url, httpx.Cookies(http.cookies), form))
    return out


def at_once(clients: list, within: float) -> list[tuple[int, float]]:
    """Every learner submits once, at a moment drawn uniformly within `within` seconds."""
    start = time.monotonic() + 0.5
    moments = sorted(random.Random(7).uniform(0, within) for _ in clients)
    results: list[tuple[int, float]] = []
    lock = threading.Lock()

    def submit(learner, moment):
        url, cookies, form = learner
        time.sleep(max(0.0, start + moment - time.monotonic()))
        began = time.perf_counter()
        status = client(url, cookies).post(f"/s/{SNIPPET}/drill", data=form).status_code
        with lock:
            results.append((status, time.perf_counter() - began))

    with concurrent.futures.ThreadPoolExecutor(len(clients)) as pool:
        list(pool.map(submit, clients, moments))
    return results


def summary(count: int, results: list[tuple[int, float]]) -> str:
    seconds = sorted(t for status, t in results if status == 200)
    refused = sum(status == 503 for status, _ in results)
    other = len(results) - len(seconds) - refused
    p95 = seconds[int(0.95 * (len(seconds) - 1))] if seconds else float("nan")
    median = statistics.median(seconds) if seconds else float("nan")
    return (
        f"| {count} | {len(seconds)} | {refused} | {other} | {median:.2f} | {p95:.2f} | "
        f"{(seconds or [float('nan')])[-1]:.2f} |"
    )


def served(data: Path, web_workers: int, database_url: str | None):
    """The server (a context giving its URL) as ./scripts/serve starts it, with `web_workers`
    uvicorn workers sharing the host's cores."""
    env = {"CODECLOZE_DATABASE_URL": database_url} if database_url else {}
    if web_workers > 1:
        env["CODECLOZE_SECRET_KEY"] = "class-bench-" + "k" * 32  # every worker signs the same cookies
        env["CODECLOZE_WORKERS"] = str(max(1, (os.cpu_count() or 1) // web_workers))
    return running_server(data, web_workers=web_workers, **env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", default="60,150,300")
    parser.add_argument("--within", type=float, default=5.0)
    parser.add_argument(
        "--settle", type=float, default=65.0, help="seconds between the learners' first verdicts and the class's"
    )
    parser.add_argument("--web-workers", type=int, default=1)
    parser.add_argument("--postgres", action="store_true", help="the attempts in a PostgreSQL of the bench's own")
    args = parser.parse_args()
    with PostgresServer() if args.postgres else contextlib.nullcontext() as postgres:
        run(args, postgres)


def run(args, postgres) -> None:
    print(f"| learners | verdicts | refused (503) | other | p50 s | p95 s | max s |  (within {args.within:g} s)")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for count in (int(n) for n in args.learners.split(",")):
        database_url = postgres.new_database() if postgres else None
        with tempfile.TemporaryDirectory() as data, served(Path(data), args.web_workers, database_url) as url:
            time.sleep(3 if args.web_workers > 1 else 0)  # every worker's fork server is up
            clients = learners(url, count)
            time.sleep(args.settle)  # established learners: their first verdicts are not this minute's
            print(summary(count, at_once(clients, args.within)), flush=True)


if __name__ == "__main__":
    main()
