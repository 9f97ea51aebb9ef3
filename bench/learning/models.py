"""Ground-truth learners: what each token's recall really is, from three models in the literature.

Every model holds one state per eligible token of a snippet (numpy arrays, so a session is a few
vector operations), starts from one reading of the whole snippet at t = 0, and has per-token
difficulty drawn from the pair's RNG that the app never sees. Times are in days.

- FSRS6: FSRS-6's own forgetting curve and stability updates (the default parameters of the
  `fsrs` package), each token's stability multiplied by its own scale.
- HLR: half-life regression (Settles & Meeder, ACL 2016): p = 2^(-Δ/h), h = 2^(θ·x) with
  x = (1, √(1+right), √(1+wrong)) and a per-token bias.
- ACTR: ACT-R declarative memory with spacing (Pavlik & Anderson, Cognitive Science 2005):
  activation m = ln Σ age_k^(-d_k), d_k = c·e^(m at presentation k) + α, recall
  1 / (1 + e^((τ - m)/s)); time between sessions counts h = 0.025 of its length.

Beside them, learners the app's FSRS (default parameters) matches badly, each with per-token or
per-line difficulty the app does not know:
- FSRS-6 fast / slow: FSRS-6's shape, a first stability of hours (fast) or three times the
  default parameters' (slow).
- Relearner: exponential forgetting four times faster than the defaults predict; a missed blank
  is relearned from the answer shown (recall 1 right after, the first stability again).
- Lines: a line is remembered as one unit: each line has FSRS-6 memory, a token's recall is its
  line's raised to the token's own difficulty, and testing any token of a line reviews the line.
- Wrong answers: FSRS-6 with a persistent wrong version of some tokens (a tenth at the start,
  and half of the misses): such a token is answered wrong until a test corrects it, and a test
  corrects it half of the time (the answer shown is read against the learner's own version).

Every model takes (n, rng, lines): lines[i] is token i's line number.
"""

import numpy as np
from fsrs.scheduler import DEFAULT_PARAMETERS

W = np.array(DEFAULT_PARAMETERS)
DECAY = -W[20]
FACTOR = 0.9 ** (1 / DECAY) - 1
AGAIN, GOOD = 1, 3


def fsrs_recall(days, stability):
    """FSRS-6's forgetting curve: R(t, S) = (1 + F·t/S)^(-w20), so R(S, S) = 0.9."""
    return (1 + FACTOR * np.asarray(days) / stability) ** DECAY


def fsrs_initial_difficulty(rating):
    return np.clip(W[4] - np.exp(W[5] * (rating - 1)) + 1, 1, 10)


def fsrs_next(s, d, r, elapsed, recalled):
    """FSRS-6's stability and difficulty after a review rated Good (recalled) or Again."""
    rating = np.where(recalled, GOOD, AGAIN)
    delta = -W[6] * (rating - 3)
    d2 = d + delta * (10 - d) / 9
    d2 = np.clip(W[7] * (W[4] - np.exp(W[5] * 3) + 1) + (1 - W[7]) * d2, 1, 10)  # mean reversion to D0(easy)
    same_day = elapsed < 1
    short = s * np.exp(W[17] * (rating - 3 + W[18])) * s ** -W[19]
    short = np.where(recalled, np.maximum(short, s), short)
    grown = s * (np.exp(W[8]) * (11 - d) * s ** -W[9] * (np.exp((1 - r) * W[10]) - 1) + 1)
    forgot = np.minimum(
        W[11] * d ** -W[12] * ((s + 1) ** W[13] - 1) * np.exp((1 - r) * W[14]), s / np.exp(W[17] * W[18])
    )
    long = np.where(recalled, grown, forgot)
    return np.clip(np.where(same_day, short, long), 0.001, 36500), d2


class FSRS6:
    name = "FSRS-6"
    SCALE_LOG = -2.0  # code read once is held less well than a flashcard: median scale e^-2

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        self.scale = np.exp(rng.normal(self.SCALE_LOG, 0.8, n))  # per-token stability scale
        self.s = np.full(n, W[2])  # one reading at t = 0, as if rated good
        self.d = np.full(n, fsrs_initial_difficulty(GOOD))
        self.last = np.zeros(n)

    def recall(self, t: float) -> np.ndarray:
        return fsrs_recall(t - self.last, self.s * self.scale)

    def _after(self, idx, t, recalled):
        r = fsrs_recall(t - self.last[idx], self.s[idx] * self.scale[idx])
        return fsrs_next(self.s[idx], self.d[idx], r, t - self.last[idx], recalled)

    def review(self, idx, t, recalled):
        self.s[idx], self.d[idx] = self._after(idx, t, recalled)
        self.last[idx] = t

    def recall_after(self, t, later, recalled) -> np.ndarray:
        """Every token's recall at `later` if it were tested now at `t` with outcome `recalled`."""
        idx = np.arange(len(self.s))
        s, _ = self._after(idx, t, np.full(len(idx), recalled))
        return fsrs_recall(later - t, s * self.scale)


class HLR:
    """θ: the bias is per token (the lexeme features of the paper), the count weights shared."""

    name = "HLR"
    THETA_RIGHT, THETA_WRONG = 1.2, -0.4

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        self.bias = rng.normal(0.5, 0.8, n)
        self.right = np.ones(n)  # the reading counts as one seen-and-known
        self.wrong = np.zeros(n)
        self.last = np.zeros(n)

    def half_life(self, right, wrong):
        return 2.0 ** (self.bias + self.THETA_RIGHT * np.sqrt(1 + right) + self.THETA_WRONG * np.sqrt(1 + wrong))

    def recall(self, t: float) -> np.ndarray:
        return 2.0 ** (-(t - self.last) / self.half_life(self.right, self.wrong))

    def review(self, idx, t, recalled):
        self.right[idx] += recalled
        self.wrong[idx] += ~recalled
        self.last[idx] = t

    def recall_after(self, t, later, recalled) -> np.ndarray:
        h = self.half_life(self.right + recalled, self.wrong + (not recalled))
        return 2.0 ** (-(later - t) / h)


class ACTR:
    """Pavlik & Anderson (2005)'s fitted values; α is per token (their item-level α)."""

    name = "ACT-R"
    C, TAU, S, H = 0.217, -0.704, 0.255, 0.025
    MAX = 200  # presentations kept per token

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        self.alpha = np.clip(rng.normal(0.177, 0.05, n), 0.05, None)
        self.times = np.full((n, self.MAX), np.nan)
        self.decays = np.full((n, self.MAX), np.nan)
        self.count = np.zeros(n, dtype=int)
        self._present(np.arange(n), 0.0)

    def _age_seconds(self, times, t):
        """Psychological time: the days since each presentation, scaled by h, in seconds (at least 1 s)."""
        return np.maximum(1.0, (t - times) * 86400 * self.H)

    def activation(self, t, rows=slice(None)) -> np.ndarray:
        times, decays = self.times[rows], self.decays[rows]
        with np.errstate(invalid="ignore"):
            total = np.nansum(self._age_seconds(times, t) ** -decays, axis=1)
        return np.log(np.where(total > 0, total, 1e-300))

    def _present(self, idx, t):
        m = self.activation(t, idx)
        m = np.where(self.count[idx] == 0, -np.inf, m)
        self.decays[idx, self.count[idx]] = self.C * np.exp(m) + self.alpha[idx]
        self.times[idx, self.count[idx]] = t
        self.count[idx] = np.minimum(self.count[idx] + 1, self.MAX - 1)

    def recall_of(self, m):
        return 1 / (1 + np.exp((self.TAU - m) / self.S))

    def recall(self, t: float) -> np.ndarray:
        return self.recall_of(self.activation(t))

    def review(self, idx, t, recalled):
        self._present(idx, t)  # a test with its answer shown afterwards is a presentation either way

    def recall_after(self, t, later, recalled) -> np.ndarray:
        m_now = self.activation(t)
        decay = self.C * np.exp(m_now) + self.alpha
        with np.errstate(invalid="ignore"):
            old = np.nansum(self._age_seconds(self.times, later) ** -self.decays, axis=1)
        new = self._age_seconds(t, later) ** -decay
        return self.recall_of(np.log(old + new))


class FastFSRS6(FSRS6):
    """FSRS-6's shape with a learner who forgets much faster than its default parameters say: a
    first stability of hours (median e^-3.5 × 2.3 days ≈ 4 h), not days."""

    name = "FSRS-6 fast"
    SCALE_LOG = -3.5


class SlowFSRS6(FSRS6):
    """FSRS-6's shape, a learner who forgets three times slower than its default parameters say."""

    name = "FSRS-6 slow"
    SCALE_LOG = float(np.log(3))


def exp_recall(days, stability):
    """Exponential forgetting, with R(S, S) = 0.9 as in FSRS."""
    return 0.9 ** (np.asarray(days) / stability)


class Relearner:
    """Exponential forgetting; a recall multiplies the stability (more after a longer gap), a miss
    followed by the answer is a fresh learning: recall 1 then, the token's first stability again."""

    name = "Relearner"

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        self.first = W[2] / 4 * np.exp(rng.normal(0, 0.8, n))  # a median of 14 hours
        self.s = self.first.copy()
        self.last = np.zeros(n)

    def recall(self, t: float) -> np.ndarray:
        return exp_recall(t - self.last, self.s)

    def _after(self, idx, t, recalled):
        grown = self.s[idx] * (1.5 + 3 * (1 - exp_recall(t - self.last[idx], self.s[idx])))
        return np.where(recalled, grown, np.maximum(self.first[idx], self.s[idx] / 2))

    def review(self, idx, t, recalled):
        self.s[idx] = self._after(idx, t, recalled)
        self.last[idx] = t

    def recall_after(self, t, later, recalled) -> np.ndarray:
        idx = np.arange(len(self.s))
        return exp_recall(later - t, self._after(idx, t, np.full(len(idx), recalled)))


class Lines:
    """A line's FSRS-6 memory (median stability scale e^-2, as FSRS6); token i recalls with
    p_line ** e_i (e_i = e^N(0, 0.4)); a session reviews each tested line once, recalled when
    every tested token of it was."""

    name = "Lines"

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        lines = np.zeros(n, dtype=int) if lines is None else np.asarray(lines)
        self.line = np.unique(lines, return_inverse=True)[1]
        m = self.line.max() + 1
        self.power = np.exp(rng.normal(0, 0.4, n))
        self.scale = np.exp(rng.normal(FSRS6.SCALE_LOG, 0.8, m))
        self.s = np.full(m, W[2])
        self.d = np.full(m, fsrs_initial_difficulty(GOOD))
        self.last = np.zeros(m)

    def _line_recall(self, t):
        return fsrs_recall(t - self.last, self.s * self.scale)

    def recall(self, t: float) -> np.ndarray:
        return self._line_recall(t)[self.line] ** self.power

    def _lines_after(self, idx, t, recalled):
        """Tested lines and each one's next (stability, difficulty)."""
        tested = np.unique(self.line[idx])
        ok = np.array([np.all(recalled[self.line[idx] == k]) for k in tested], dtype=bool)
        r = self._line_recall(t)[tested]
        return tested, fsrs_next(self.s[tested], self.d[tested], r, t - self.last[tested], ok)

    def review(self, idx, t, recalled):
        tested, (self.s[tested], self.d[tested]) = self._lines_after(idx, t, np.asarray(recalled))
        self.last[tested] = t

    def recall_after(self, t, later, recalled) -> np.ndarray:
        """Each token's recall at `later` if it alone of its line were tested now."""
        s, _ = fsrs_next(self.s, self.d, self._line_recall(t), t - self.last, np.full(len(self.s), recalled))
        return fsrs_recall(later - t, (s * self.scale)[self.line]) ** self.power


class WrongAnswers(FSRS6):
    """FSRS6 plus a persistent wrong version of some tokens, answered until a test corrects it."""

    name = "Wrong answers"
    START_SHARE, FROM_MISS, CORRECTED = 0.1, 0.5, 0.5

    def __init__(self, n: int, rng: np.random.Generator, lines=None):
        super().__init__(n, rng, lines)
        self.rng = np.random.default_rng(rng.integers(2**32))
        self.wrong = self.rng.random(n) < self.START_SHARE

    def recall(self, t: float) -> np.ndarray:
        return np.where(self.wrong, 0.0, super().recall(t))

    def review(self, idx, t, recalled):
        recalled = np.asarray(recalled)
        was_wrong = self.wrong[idx].copy()
        super().review(idx, t, recalled)
        u = self.rng.random(len(idx))
        # a held wrong version stays unless this test corrects it; a fresh miss may become one
        self.wrong[idx] = np.where(was_wrong, u >= self.CORRECTED, ~recalled & (u < self.FROM_MISS))

    def recall_after(self, t, later, recalled) -> np.ndarray:
        p = super().recall_after(t, later, recalled)
        keep = np.where(self.wrong, 1 - self.CORRECTED, 0.0 if recalled else self.FROM_MISS)
        return (1 - keep) * p


MODELS = {
    "fsrs": FSRS6,
    "fast": FastFSRS6,
    "slow": SlowFSRS6,
    "relearner": Relearner,
    "lines": Lines,
    "wrong": WrongAnswers,
    "hlr": HLR,
    "actr": ACTR,
}
