"""Learner memory: `/me` and the review mask for a learner with 10,000 attempts over 8 snippets.

The history is written through the store's own batch path (so memory is kept the way the server
keeps it), spread over 60 days; then pages are timed in-process (no network, no sandbox).

    python bench/memory_bench.py [--attempts 10000] [--requests 300]
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.engine.score import score  # noqa: E402
from app.engine.tokens import eligible_spans  # noqa: E402
from app.learn.drills import random_drill  # noqa: E402
from app.learn.feedback import Result  # noqa: E402
from app.main import create_app  # noqa: E402
from app.memory.record import attempt_record  # noqa: E402
from app.memory.review import review_mask  # noqa: E402
from app.memory.state import card_version, token_memory  # noqa: E402
from app.settings import Settings  # noqa: E402
from tests.site_client import SiteClient  # noqa: E402


def history(app, learner: str, count: int, rng: random.Random) -> float:
    """Write `count` attempts over 60 days in batches of 50; seconds spent writing."""
    store, snippets = app.state.store, app.state.library.all()
    start, spent, batch = datetime.now(UTC) - timedelta(days=60), 0.0, []
    weak = {s.id: set(rng.sample(range(len(eligible_spans(s.code))), 8)) for s in snippets}
    for n in range(count):
        snippet = snippets[n % len(snippets)]
        drill = random_drill(snippet, rng.choice([10, 15, 20, 30]), rng.randrange(2**40))
        answers = {
            h.key: (
                "x" if int(h.key[1:]) in weak[snippet.id] and rng.random() < 0.6 or rng.random() < 0.05 else h.answer
            )
            for h in drill.holes
        }
        verdicts = score(list(drill.holes), answers)
        record = attempt_record(learner, drill, Result(tuple(verdicts)), {"ms": str(rng.randrange(20_000, 200_000))})
        batch.append((rng.randrange(1, 2**62), record, start + timedelta(seconds=n * 60 * 60 * 24 * 60 / count)))
        if len(batch) == 50:
            began = time.perf_counter()
            store.commit(batch)
            spent += time.perf_counter() - began
            batch = []
    if batch:
        store.commit(batch)
    return spent


def timed(call, requests: int) -> tuple[float, float]:
    call()  # warm
    times = []
    for _ in range(requests):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as data:
        app = create_app(Settings(data_dir=Path(data), execution=False, use_cdn=False))
        with SiteClient(app) as client:
            learner = app.state.identity.new_id()
            write_s = history(app, learner, args.attempts, rng)
            client.cookies.set("cc_learner", app.state.identity.cookie_value(learner), domain="testserver.local")
            page = client.get("/me")
            assert page.status_code == 200 and page.text.count('class="snippet-progress"') == 8
            rows = [
                (f"GET /me (HTML, {len(page.text) // 1024} KB)", timed(lambda: client.get("/me"), args.requests)),
                (
                    "GET /me (JSON)",
                    timed(lambda: client.get("/me", headers={"accept": "application/json"}), args.requests),
                ),
                ("GET / (with the due list)", timed(lambda: client.get("/"), args.requests)),
            ]
            snippet = app.state.library.get("mlm-flash-forward")
            store, n = app.state.store, tuple(s.index for s in eligible_spans(snippet.code))

            def mask():
                with store.engine.connect() as db:
                    memory = token_memory(
                        db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
                    )
                return review_mask(snippet.version, n, 20, rng.randrange(2**40), memory, datetime.now(UTC))

            rows.append(("review mask (read memory + choose), 139 tokens", timed(mask, args.requests)))
            rows.append(
                (
                    "GET /s/…/review (choose, redirect)",
                    timed(lambda: client.get(f"/s/{snippet.id}/review?rate=20", follow_redirects=False), args.requests),
                )
            )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"{args.attempts} attempts over 8 snippets written in {write_s:.1f} s "
        f"({write_s / args.attempts * 1000:.2f} ms of memory + attempt writing per attempt, batches of 50)"
    )
    print("| measurement | p50 ms | p99 ms |\n|---|---|---|")
    for name, (p50, p99) in rows:
        print(f"| {name} | {p50:.2f} | {p99:.2f} |")


if __name__ == "__main__":
    main()
