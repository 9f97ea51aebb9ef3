"""Group commit: every writer waits for the transaction that holds its rows, nothing more.

One thread owns the writes. Requests hand it an item and await its future; the thread takes
everything that piled up while the previous transaction committed and writes it as one batch,
so under load many submissions share one commit and nobody waits on a timer. A failing batch
is retried row by row, so one bad row is refused alone and never takes others with it.
"""

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

log = logging.getLogger("codecloze")


class NotStored(Exception):
    """The database did not take the row: the caller must not confirm it."""


class GroupCommit:
    def __init__(self, write: Callable[[list], None], is_outage: Callable[[Exception], bool] = lambda err: True):
        self._write = write
        self._is_outage = is_outage  # the database itself failed, not one row of the batch
        self.healthy = True  # the last write reached the database
        self._items: deque[tuple[object, Future]] = deque()
        self._wake = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="group-commit", daemon=True)
        self._thread.start()

    def submit(self, item) -> Future:
        """A future that is done once `item` is committed (or failed with NotStored)."""
        future: Future = Future()
        with self._wake:
            if self._closed:
                raise NotStored("the writer is closed")
            self._items.append((item, future))
            self._wake.notify()
        return future

    async def write(self, item) -> None:
        """Returns once `item` is committed; raises NotStored if it was not."""
        await asyncio.wrap_future(self.submit(item))

    def close(self) -> None:
        """Write what is pending, then stop."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._thread.join(30)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._items and not self._closed:
                    self._wake.wait()
                if not self._items:
                    return
                batch = list(self._items)
                self._items.clear()
            self._commit(batch)

    def _commit(self, batch: list[tuple[object, Future]]) -> None:
        try:
            self._write([item for item, _ in batch])
        except Exception as err:
            outage = self._is_outage(err)
            if outage or len(batch) == 1:
                log.warning("could not store %d row(s): %s", len(batch), str(err).splitlines()[0][:200])
                self.healthy = not outage and self.healthy
                for _, future in batch:
                    future.set_exception(NotStored(str(err)))
                return
            for one in batch:  # find the bad row: the others are still stored
                self._commit([one])
            return
        self.healthy = True
        for _, future in batch:
            future.set_result(None)
