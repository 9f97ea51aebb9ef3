"""Attempts are written behind the response, in batches, by one thread.

A submission never waits on the database, and SQLite sees one transaction per batch instead of
one per learner. Reads that need the latest attempts call `flush()` first; shutdown flushes too,
so only a crash of the whole process can drop the last fraction of a second.
"""
import logging
import queue
import threading
import time
from collections.abc import Callable

log = logging.getLogger("codecloze")


class BatchWriter:
    def __init__(self, write: Callable[[list], None], max_batch: int = 500, max_delay: float = 0.05):
        self._write = write
        self._queue: queue.Queue = queue.Queue()
        self._max_batch, self._max_delay = max_batch, max_delay
        self._thread = threading.Thread(target=self._run, name="attempt-writer", daemon=True)
        self._thread.start()

    def add(self, item) -> None:
        self._queue.put(item)

    def flush(self) -> None:
        self._queue.join()

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(10)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                self._queue.task_done()
                return
            batch, deadline = [first], time.monotonic() + self._max_delay
            while len(batch) < self._max_batch and (left := deadline - time.monotonic()) > 0:
                try:
                    item = self._queue.get(timeout=left)
                except queue.Empty:
                    break
                if item is None:
                    self._queue.put(None)  # stop after this batch
                    self._queue.task_done()
                    break
                batch.append(item)
            self._commit(batch)
            for _ in batch:
                self._queue.task_done()

    def _commit(self, batch: list) -> None:
        for attempt in range(3):
            try:
                self._write(batch)
                return
            except Exception:  # a locked or unreachable database: retry, then report
                if attempt == 2:
                    log.exception("could not store %d attempts", len(batch))
                time.sleep(0.5 * (attempt + 1))
