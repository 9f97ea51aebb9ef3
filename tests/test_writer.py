"""The write-behind batcher: nothing lost, batches not rows, flush means written."""
import threading
import time

from app.writer import BatchWriter


class Sink:
    def __init__(self, fail_first: int = 0):
        self.batches: list[list] = []
        self.fail_first = fail_first
        self.lock = threading.Lock()

    def __call__(self, batch: list) -> None:
        with self.lock:
            if self.fail_first:
                self.fail_first -= 1
                raise OSError("database is locked")
            self.batches.append(list(batch))

    @property
    def items(self) -> list:
        with self.lock:
            return [item for batch in self.batches for item in batch]


def test_items_are_written_behind_in_batches():
    sink = Sink()
    writer = BatchWriter(sink, max_delay=0.2)
    for i in range(100):
        writer.add(i)
    assert sink.items == []  # adding wakes nobody
    deadline = time.monotonic() + 5
    while len(sink.items) < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sink.items == list(range(100)) and len(sink.batches) <= 2
    writer.close()


def test_flush_returns_once_everything_added_before_is_written():
    sink = Sink()
    writer = BatchWriter(sink, max_delay=60)
    writer.add("a")
    writer.add("b")
    writer.flush()
    assert sink.items == ["a", "b"]
    writer.add("c")
    writer.close()
    assert sink.items == ["a", "b", "c"]


def test_items_added_from_many_threads_are_all_written_once():
    sink = Sink()
    writer = BatchWriter(sink, max_delay=0.01)
    threads = [threading.Thread(target=lambda t=t: [writer.add((t, i)) for i in range(500)]) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    assert sorted(sink.items) == sorted((t, i) for t in range(4) for i in range(500))


def test_a_failed_write_is_retried():
    sink = Sink(fail_first=1)
    writer = BatchWriter(sink, max_delay=60)
    writer.add("kept")
    writer.flush()
    assert sink.items == ["kept"]
    writer.close()
