"""Exponential back-off of failures by key (an address, or everyone): after `free` failures each
further one doubles the wait, up to `cap` seconds; a quiet spell as long as `forget` clears it."""

import collections
import time


class Backoff:
    def __init__(self, free: int, base: float = 1.0, cap: float = 300.0, forget: float = 600.0, remembered: int = 4096):
        self.free, self.base, self.cap, self.forget, self.remembered = free, base, cap, forget, remembered
        self.failures: collections.OrderedDict[str, tuple[int, float]] = collections.OrderedDict()

    def _count(self, key: str, now: float) -> tuple[int, float]:
        count, last = self.failures.get(key, (0, 0.0))
        return (0, 0.0) if now - last > self.forget else (count, last)

    def wait(self, key: str) -> float:
        """Seconds before a failure of `key` is judged again (0: now)."""
        now = time.monotonic()
        count, last = self._count(key, now)
        if count < self.free:
            return 0.0
        return max(0.0, last + min(self.cap, self.base * 2 ** (count - self.free)) - now)

    def failed(self, key: str) -> None:
        now = time.monotonic()
        count, _last = self._count(key, now)
        self.failures[key] = (count + 1, now)
        self.failures.move_to_end(key)
        if len(self.failures) > self.remembered:  # many addresses: the oldest are forgotten
            self.failures.popitem(last=False)
