"""How well the memory model predicts this learner, and the time scale that fits them best.

Every token blank is a prediction the model made: the token's recall at that moment, from its
stability and the time since its last test, against what the learner typed. FSRS's default
parameters describe an average flashcard learner; a learner of code may forget several times
faster or slower, and a token missed and then shown its answer may be relearned better or worse
than FSRS's post-lapse stability says. So each learner keeps, for every candidate scale c (their
memory lasting c times what the model's stability says), the summed log loss of the predictions
that scale would have made: one sum for tokens whose last test was a miss, one for the rest.
From the first sessions on (MIN_BLANKS), the scale with the least loss is the learner's, and a
review mask ranks tokens on the learner's clock (policy.py). The sums are a few numbers per
learner, added in the attempts' transaction; `evidence` reports them for /me and the benchmark.
"""

import math
from dataclasses import dataclass

from .fsrs6 import decay, factor

SCALES = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0)
MIN_BLANKS = 20  # blanks of a kind before its scale moves from 1
EPSILON = 1e-4


@dataclass(frozen=True)
class Calibration:
    """Blanks seen and the summed log loss per scale: [after a recall or a reading, after a miss]."""

    blanks: tuple[int, int] = (0, 0)
    recalled: tuple[int, int] = (0, 0)
    loss: tuple[tuple[float, ...], tuple[float, ...]] = ((0.0,) * len(SCALES), (0.0,) * len(SCALES))

    def scale(self, missed: bool) -> float:
        """The learner's scale for tokens last missed (or not): 1 until MIN_BLANKS of them."""
        kind = int(bool(missed))
        if self.blanks[kind] < MIN_BLANKS:
            return 1.0
        losses = self.loss[kind]
        return SCALES[min(range(len(SCALES)), key=lambda j: (losses[j], abs(math.log(SCALES[j]))))]

    def added(self, terms: list[tuple[bool, bool, tuple[float, ...]]]) -> "Calibration":
        """With more blanks: (last test missed, recalled now, log loss per scale) each."""
        blanks, recalled, loss = list(self.blanks), list(self.recalled), [list(self.loss[0]), list(self.loss[1])]
        for missed, ok, losses in terms:
            kind = int(missed)
            blanks[kind] += 1
            recalled[kind] += ok
            loss[kind] = [a + b for a, b in zip(loss[kind], losses)]
        return Calibration(tuple(blanks), tuple(recalled), (tuple(loss[0]), tuple(loss[1])))

    def to_json(self) -> dict:
        return {"blanks": list(self.blanks), "recalled": list(self.recalled), "loss": [list(x) for x in self.loss]}

    @classmethod
    def from_json(cls, data: dict | None) -> "Calibration":
        if not data or len(data.get("loss", [[]])[0]) != len(SCALES):
            return cls()  # none yet, or kept for another grid of scales: start again
        return cls(tuple(data["blanks"]), tuple(data["recalled"]), tuple(tuple(x) for x in data["loss"]))

    def evidence(self) -> dict:
        """Per kind: blanks, the share recalled, the scale, and the log loss per blank at scale 1
        and at the chosen scale (how much the fit predicts better)."""
        out = {}
        for kind, name in enumerate(("recalled", "missed")):
            n = self.blanks[kind]
            if not n:
                continue
            chosen = SCALES.index(self.scale(bool(kind)))
            out[name] = {
                "blanks": n,
                "recalled": self.recalled[kind] / n,
                "scale": SCALES[chosen],
                "loss_default": self.loss[kind][SCALES.index(1.0)] / n,
                "loss_fitted": self.loss[kind][chosen] / n,
            }
        return out


def blank_term(row, recalled: bool, now: float, scheduler) -> tuple[bool, bool, tuple[float, ...]] | None:
    """A blank as a prediction of the token's stored memory `row` (None: nothing stored to predict from)."""
    if row is None or row.stability is None or row.last_review is None:
        return None
    return bool(row.missed), recalled, blank_terms(scheduler, row.stability, (now - row.last_review) / 86400, recalled)


def blank_terms(scheduler, stability: float, days: float, recalled: bool) -> tuple[float, ...]:
    """The log loss each scale's prediction of this blank would have had (fsrs6.recall at days / c,
    its constants read once: every blank of every attempt computes this twice)."""
    step, power, out = factor(scheduler) * max(0.0, days) / stability, decay(scheduler), []
    for c in SCALES:
        p = min(1 - EPSILON, max(EPSILON, (1 + step / c) ** power))
        out.append(-math.log(p if recalled else 1 - p))
    return tuple(out)
