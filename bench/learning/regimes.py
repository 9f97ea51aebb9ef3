"""Study regimes: when a learner sits down (days since the start) and at what rate."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Regime:
    name: str
    rate: int
    days: int

    def sessions(self, rng: np.random.Generator) -> list[float]:
        if self.name == "heavy":  # 2 a day, morning and evening
            return [d + h for d in range(self.days) for h in (9 / 24, 19 / 24)]
        if self.name == "light":
            return [d + 9 / 24 for d in range(self.days)]
        out, day = [], 0.0  # irregular: 1–2 sessions on a day, then a gap of 1–6 days
        while day < self.days:
            out += [day + 10 / 24] + ([day + 20 / 24] if rng.random() < 0.4 else [])
            day += int(rng.integers(1, 7))
        return out


REGIMES = {"heavy": Regime("heavy", 30, 21), "light": Regime("light", 10, 28), "irregular": Regime("irregular", 20, 28)}
