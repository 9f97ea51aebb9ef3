"""Attempts are written behind the response, in batches, by one thread.

A submission never waits on the database, and SQLite sees one transaction per batch instead of
one per learner. Adding an item wakes nobody: the thread looks every `max_delay` seconds, so a
busy server pays no thread switch per submission. Reads that need the latest attempts call
`flush()` first; shutdown flushes too, so only a crash of the whole process can drop the last
fraction of a second.
"""
import logging
import threading
import time
from collections import deque
from collections.abc import Callable

log = logging.getLogger("codecloze")


class BatchWriter:
    def __init__(self, write: Callable[[list], None], max_delay: float = 0.05):
        self._write = write
        self._items: deque = deque()  # appends and pops are atomic: no lock on the hot path
        self._lock = threading.Lock()  # held while a batch is written, so flush() waits for it
        self._stop = threading.Event()
        self._max_delay = max_delay
        self._thread = threading.Thread(target=self._run, name="attempt-writer", daemon=True)
        self._thread.start()

    def add(self, item) -> None:
        self._items.append(item)

    def flush(self) -> None:
        """Everything added before this call is written when it returns."""
        with self._lock:
            self._write_pending()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.flush()

    def _run(self) -> None:
        while not self._stop.wait(self._max_delay):
            if self._items:
                self.flush()

    def _write_pending(self) -> None:
        batch = []
        while self._items:
            batch.append(self._items.popleft())
        if batch:
            self._commit(batch)

    def _commit(self, batch: list) -> None:
        for attempt in range(3):
            try:
                self._write(batch)
                return
            except Exception:  # a locked or unreachable database: retry, then report
                if attempt == 2:
                    log.exception("could not store %d attempts", len(batch))
                time.sleep(0.5 * (attempt + 1))
