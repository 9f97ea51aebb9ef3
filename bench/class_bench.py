"""A snippet's class page at 100,000 attempts: p50/p99 of the page, its JSON and the class page.

300 learners (240 in class BENCH, 60 in OTHER) drill one snippet over 30 days. Attempt rows and
class counters are written the way `Store.commit` writes them (app/learn/recording.py), in batches of 500; learner
memory (FSRS, 3–5 ms per attempt, not read by class figures except the due counts) is kept for the
first 2,000 attempts only, so the history takes a minute rather than eight. The plain recount from
every attempt row (what the counters replace) is timed too.

    python bench/class_bench.py [--attempts 100000] [--requests 100] [--postgres]
"""

import argparse
import random
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert  # noqa: E402

from app.classes import roster  # noqa: E402
from app.classes.counts import class_codes  # noqa: E402
from app.classes.fold import fold  # noqa: E402
from app.classes.tables import pending  # noqa: E402
from app.engine.score import score  # noqa: E402
from app.learn.drills import random_drill  # noqa: E402
from app.learn.feedback import Result  # noqa: E402
from app.learn.recording import insert_attempts  # noqa: E402
from app.main import create_app  # noqa: E402
from app.memory import identity  # noqa: E402
from app.memory.record import attempt_record  # noqa: E402
from app.memory.update import apply_attempts  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.memory_bench import timed  # noqa: E402
from tests.class_helpers import plain_figures  # noqa: E402
from tests.site_client import SiteClient  # noqa: E402
from tests.teach_helpers import TOKEN  # noqa: E402

SNIPPET = "mlm-online-softmax"
WITH_MEMORY = 2_000
BATCH = 500


def learners(app, rng: random.Random) -> list[str]:
    ids = [app.state.identity.new_id() for _ in range(300)]
    with app.state.store.engine.begin() as db:
        for code in ("BENCH", "OTHER"):
            roster.create(db, code, None, "bench")
        for n, learner in enumerate(ids):
            identity.save_profile(
                db, learner, name=f"学生{n}" if n % 3 else None, class_code="BENCH" if n < 240 else "OTHER"
            )
    return ids


def history(app, ids: list[str], count: int, rng: random.Random) -> float:
    """Write `count` attempts over 30 days; seconds spent writing."""
    store, snippet = app.state.store, app.state.library.get(SNIPPET)
    weak = set(rng.sample(range(64), 10))
    start, spent, batch = datetime.now(UTC) - timedelta(days=30), 0.0, []
    for n in range(count):
        drill = random_drill(snippet, rng.choice([10, 15, 20, 30]), rng.randrange(2**40))
        answers = {h.key: _answer(h, weak, rng) for h in drill.holes}
        result = Result(tuple(score(list(drill.holes), answers)))
        record = attempt_record(rng.choice(ids), drill, result, {"ms": str(rng.randrange(20_000, 200_000))})
        batch.append((rng.randrange(1, 2**62), record, start + timedelta(seconds=n * 30 * 86400 / count)))
        if len(batch) == BATCH or n == count - 1:
            began = time.perf_counter()
            _write(store, batch, memory=n < WITH_MEMORY)
            spent += time.perf_counter() - began
            batch = []
    return spent


def _answer(hole, weak: set, rng: random.Random) -> str:
    if hole.span and hole.span[0] in weak and rng.random() < 0.5:
        return rng.choice(["x", "m_new", "exp", hole.answer + "1"])
    return f"junk{rng.randrange(2000)}" if rng.random() < 0.03 else hole.answer


def _write(store, batch: list, memory: bool) -> None:
    """`Store.commit`, with learner memory only when asked."""
    with store.engine.begin() as db:
        codes = class_codes(db, (r.learner for _, r, _ in batch))
        insert_attempts(db, batch, codes)
        if memory:
            apply_attempts(db, batch)
        db.execute(insert(pending), [{"attempt_id": i} for i, _, _ in batch])
    fold(store.engine)  # the class counters, as the first page view after these attempts would


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--postgres", action="store_true", help="a PostgreSQL server started for the run")
    args = parser.parse_args()
    rng = random.Random(10)
    with ExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        url = None
        if args.postgres:
            from tests.postgres import PostgresServer

            url = stack.enter_context(PostgresServer()).new_database()
        app = create_app(Settings(data_dir=data, execution=False, use_cdn=False, teacher_token=TOKEN, database_url=url))
        client = stack.enter_context(SiteClient(app))
        ids = learners(app, rng)
        write_s = history(app, ids, args.attempts, rng)
        if url:  # what autovacuum does after a bulk load, done now rather than in a minute
            with app.state.store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as db:
                db.exec_driver_sql("ANALYZE")
        print(
            f"{'PostgreSQL' if url else 'SQLite'}: {args.attempts} attempts written in {write_s:.1f} s"
            f" ({write_s / args.attempts * 1000:.2f} ms each, memory for the first {WITH_MEMORY})"
        )
        client.get(f"/teach/login?token={TOKEN}")
        day = (datetime.now(UTC) - timedelta(days=10)).date().isoformat()
        pages = {
            "GET /teach/stats/… ?class=BENCH (HTML)": f"/teach/stats/{SNIPPET}?class=BENCH",
            "GET /api/snippets/…/stats?class=BENCH (JSON)": f"/api/snippets/{SNIPPET}/stats?class=BENCH",
            "… every class, last 10 days (HTML)": f"/teach/stats/{SNIPPET}?from={day}",
            "GET /teach/classes/BENCH (240 learners)": "/teach/classes/BENCH",
        }
        headers = {"authorization": f"Bearer {TOKEN}"}
        for name, path in pages.items():
            response = client.get(path, headers=headers)
            assert response.status_code == 200, response.text[:200]
            p50, p99 = timed(lambda: client.get(path, headers=headers), args.requests)
            print(f"| {name} | {p50:.1f} | {p99:.1f} | {len(response.content) // 1024} KB |")
        version = app.state.library.get(SNIPPET).version
        p50, p99 = timed(lambda: plain_figures(app.state.store.engine, SNIPPET, version, "BENCH"), 3)
        print(f"| plain recount from every attempt row (class BENCH) | {p50:.1f} | {p99:.1f} | |")


if __name__ == "__main__":
    main()
