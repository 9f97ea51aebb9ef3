"""Group commit: a write returns only once committed, batches form under load, one bad row
is refused alone, and an outage fails its batch without a row-by-row crawl."""

import asyncio
import threading

import pytest

from app.db.commit import GroupCommit, NotStored

pytestmark = pytest.mark.unit


class Sink:
    def __init__(self):
        self.batches: list[list] = []
        self.gate = threading.Event()
        self.gate.set()
        self.calls = 0

    def __call__(self, batch: list) -> None:
        self.calls += 1
        self.gate.wait(5)
        if any(item == "bad" for item in batch):
            raise ValueError("this row cannot be stored")
        if any(item == "outage" for item in batch):
            raise OSError("database is locked")
        self.batches.append(list(batch))

    @property
    def items(self) -> list:
        return [item for batch in self.batches for item in batch]


def outage(err: Exception) -> bool:
    return isinstance(err, OSError)


def test_a_write_returns_after_its_commit():
    sink = Sink()
    writer = GroupCommit(sink, is_outage=outage)
    sink.gate.clear()
    future = writer.submit("a")
    assert not future.done()  # the transaction has not committed yet
    sink.gate.set()
    future.result(5)
    assert sink.items == ["a"]
    writer.close()


def test_writes_that_pile_up_share_one_commit():
    sink = Sink()
    writer = GroupCommit(sink, is_outage=outage)
    sink.gate.clear()
    first = writer.submit(0)
    rest = [writer.submit(i) for i in range(1, 50)]  # arrive while the first commit is under way
    sink.gate.set()
    for future in [first, *rest]:
        future.result(5)
    assert sorted(sink.items) == list(range(50))
    assert len(sink.batches) <= 3
    writer.close()


def test_one_bad_row_is_refused_alone():
    sink = Sink()
    writer = GroupCommit(sink, is_outage=outage)
    sink.gate.clear()
    futures = [writer.submit(x) for x in ["a", "b", "bad", "c"]]
    sink.gate.set()
    with pytest.raises(NotStored):
        futures[2].result(5)
    for f in futures[:2] + futures[3:]:
        f.result(5)
    assert sorted(sink.items) == ["a", "b", "c"]
    assert writer.healthy
    writer.close()


def test_an_outage_fails_the_batch_and_marks_the_writer_unhealthy():
    sink = Sink()
    writer = GroupCommit(sink, is_outage=outage)
    sink.gate.clear()
    futures = [writer.submit(x) for x in ["a", "outage", "b"]]
    sink.gate.set()
    for f in futures:
        try:
            f.result(5)
        except NotStored:
            pass
    assert not writer.healthy
    assert sink.calls <= 3  # no retry of each row against a database that is down
    writer.submit("later").result(5)
    assert writer.healthy and "later" in sink.items
    writer.close()


def test_many_threads_and_the_event_loop_lose_nothing():
    sink = Sink()
    writer = GroupCommit(sink, is_outage=outage)
    threads = [
        threading.Thread(target=lambda t=t: [writer.submit((t, i)).result(5) for i in range(200)]) for t in range(4)
    ]
    for t in threads:
        t.start()

    async def from_the_loop():
        await asyncio.gather(*(writer.write(("loop", i)) for i in range(200)))

    asyncio.run(from_the_loop())
    for t in threads:
        t.join()
    assert len(sink.items) == 1000 and len(set(sink.items)) == 1000
    writer.close()
    with pytest.raises(NotStored):
        writer.submit("after close")
