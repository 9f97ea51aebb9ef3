"""CPU time of the attempt writer alone: one group-commit batch (attempt rows, learner memory,
the attempts' ids pending for the class counters, one transaction) on a fresh SQLite file, for
batches of 1 and of 8 attempts by different returning learners of one class, 20 % masks of the
Flash Attention Forward drill, every other blank wrong. The figure a token-scored submission's
commit costs the web process; beside it, what folding those attempts into the class counters
costs the first class page that reads them, per attempt. Below the table, the writer's floor: the
cheapest durable transaction on the same kind of file (one small row, then the commit).

    python bench/write_cpu.py [--batches 300]
"""

import argparse
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert  # noqa: E402

from app.classes.fold import fold  # noqa: E402
from app.db.store import make_engine  # noqa: E402
from app.engine.score import score  # noqa: E402
from app.learn.drills import random_drill  # noqa: E402
from app.learn.feedback import Result  # noqa: E402
from app.learn.recording import attempt_store  # noqa: E402
from app.memory.record import attempt_record  # noqa: E402
from app.memory.tables import learners  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402
from bench.submission_profile import RATE, SNIPPET, bodies  # noqa: E402


def records(learner_ids: list[str], count: int) -> list:
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    snippet, forms, out = library.get(SNIPPET), bodies(), []
    for n in range(count):
        fields = dict(parse_qsl(forms[n % len(forms)]))
        drill = random_drill(snippet, RATE, int(fields["seed"]))
        verdicts = score(list(drill.holes), fields)
        out.append(attempt_record(learner_ids[n % len(learner_ids)], drill, Result(tuple(verdicts)), fields))
    return out


def cpu_ms_per_attempt(size: int, batches: int) -> float:
    with tempfile.TemporaryDirectory() as data:
        store = attempt_store(f"sqlite:///{data}/bench.db")
        ids = [f"{n:032x}" for n in range(size)]
        with store.engine.begin() as db:
            now = datetime.now(UTC)
            db.execute(insert(learners), [{"id": i, "class_code": "c1", "created_at": now} for i in ids])
        made, at, rng = records(ids, size * (batches + 20)), datetime.now(UTC), random.Random(1)

        def batch(k: int) -> list:
            return [(rng.randrange(1, 2**62), r, at + timedelta(seconds=k)) for r in made[k * size : (k + 1) * size]]

        for k in range(20):  # every learner returning, with memory rows to update
            store.commit(batch(k))
        fold(store.engine)
        started = time.process_time()
        for k in range(20, 20 + batches):
            store.commit(batch(k))
        spent = time.process_time() - started
        started = time.process_time()
        fold(store.engine)
        folding = time.process_time() - started
        store.close()
    return spent * 1000 / (batches * size), folding * 1000 / (batches * size)


def commit_floor_ms(transactions: int) -> float:
    """CPU per transaction of one small row and its commit, on an SQLite file opened as the
    store opens its own (WAL, synchronous FULL): what any durable attempt costs at the least."""
    with tempfile.TemporaryDirectory() as data:
        engine = make_engine(f"sqlite:///{data}/floor.db")
        with engine.connect() as db:
            raw = db.connection.dbapi_connection
            raw.execute("CREATE TABLE floor (id INTEGER PRIMARY KEY, body TEXT)")
            raw.commit()
            started = time.process_time()
            for _ in range(transactions):
                raw.execute("INSERT INTO floor (body) VALUES (?)", ("x" * 200,))
                raw.commit()
            spent = time.process_time() - started
            stored = raw.execute("SELECT count(*) FROM floor").fetchone()[0]
        engine.dispose()
    assert stored == transactions, stored
    return spent * 1000 / transactions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=300)
    args = parser.parse_args()
    print("| batch of | writer CPU per attempt | folding into the class counters, per attempt |\n|---|---|---|")
    for size in (1, 8):
        writing, folding = cpu_ms_per_attempt(size, max(20, args.batches // size))
        print(f"| {size} | {writing:.2f} ms | {folding:.2f} ms |")
    print(f"\nfloor: one small row and its commit, {commit_floor_ms(args.batches):.2f} ms per transaction")


if __name__ == "__main__":
    main()
