"""The attempt writer reads and writes each group commit's batch with one statement per table:
the memory and class counters it leaves must be exactly those of writing the same attempts one
at a time, on each database the app supports, including a learner's second attempt on the same
snippet in one batch (it must build on the first) and practice after "reveal all"."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, select

from app.classes.fold import fold
from app.classes.tables import activity, answers, spans
from app.db.tables import attempts
from app.engine.score import score
from app.learn.drills import random_drill
from app.learn.feedback import Result
from app.learn.recording import attempt_store
from app.memory.record import attempt_record
from app.memory.tables import cards, learners, models, tokens
from app.settings import PROJECT_DIR
from app.snippets.library import SnippetLibrary

pytestmark = pytest.mark.server

TABLES = (attempts, cards, tokens, models, activity, spans, answers)
LEARNERS = ("a" * 32, "b" * 32, "c" * 32)


def made_records(count: int) -> list:
    """Attempts by three learners (two of one class) on two snippets: some blanks right, some
    wrong in varied text, some empty; every fifth one practice."""
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    rng, out = random.Random(5), []
    for n in range(count):
        snippet = library.get(rng.choice(("mlm-flash-forward", "mlm-online-softmax")))
        drill = random_drill(snippet, rng.choice((20, 40)), rng.randrange(1000), rng.choice(("token", "span")))
        fields = {h.key: rng.choice((h.answer, h.answer, "", f"x{rng.randrange(9)}")) for h in drill.holes} | (
            {"revealed": "all"} if n % 5 == 4 else {}
        )
        result = Result(tuple(score(list(drill.holes), fields)))
        out.append(attempt_record(LEARNERS[rng.randrange(3)], drill, result, fields))
    return out


def written(url: str, batches: list[list]) -> dict:
    store = attempt_store(url)
    try:
        with store.engine.begin() as db:
            now = datetime.now(UTC)
            db.execute(
                insert(learners),
                [{"id": i, "class_code": c, "created_at": now} for i, c in zip(LEARNERS, ("k1", "k1", None))],
            )
        for batch in batches:
            store.commit(batch)
        fold(store.engine)  # the class counters as the first read sees them
        with store.engine.connect() as db:
            return {t.name: sorted(tuple(r) for r in db.execute(select(t))) for t in TABLES}
    finally:
        store.close()


def test_one_batch_leaves_what_one_attempt_at_a_time_leaves(database_url, second_database_url):
    start = datetime(2026, 11, 2, 9, tzinfo=UTC)
    items = [(n + 1, r, start + timedelta(minutes=n * 7)) for n, r in enumerate(made_records(40))]
    assert len({(r.learner, r.snippet_id) for _, r, _ in items}) < len(items)  # repeats within the batch
    one_at_a_time = written(database_url, [[item] for item in items])
    in_batches = written(second_database_url, [items[:3], items[3:]])  # the second batch holds 37
    assert one_at_a_time["memory_tokens"] and one_at_a_time["class_spans"]
    # Accuracy sums are floats added in another order: equal to the last bits, not bit for bit.
    accuracy = activity.c.keys().index("accuracy")
    for tables in (in_batches, one_at_a_time):
        tables["class_activity"] = [
            (*r[:accuracy], round(r[accuracy], 9), *r[accuracy + 1 :]) for r in tables["class_activity"]
        ]
    assert in_batches == one_at_a_time
