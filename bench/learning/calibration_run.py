"""How well the app's predictions match each simulated learner: the calibration of the recall the
app predicts for every blank (FSRS's default parameters, the chosen policy) against what the
learner recalled, per model, in one regime.

    python -m bench.learning --calibration [--pairs 10] [--regimes light]

Per model: blanks, log loss, Brier score, the mean predicted and observed recall, and the observed
recall in bins of predicted recall (how far "90 % predicted" is from 90 % recalled). Then, per model,
how many learners the app took to remember by lines (app/memory/line_memory.py) at their last
review, and at which review it first did.
"""

import numpy as np

from app.engine.tokens import eligible_spans
from app.memory.policy import CHOSEN

from .models import MODELS
from .regimes import REGIMES
from .runs import drills
from .sim import Learner, ground_truth, memory_engine, session

BINS = (0.0, 0.5, 0.8, 0.9, 0.95, 1.0001)


def predictions(model_name: str, regime, pair: int) -> list[tuple[float, bool]]:
    """(predicted recall, recalled) of every blank of one chosen-policy learner."""
    return learner_run(model_name, regime, pair).predicted


def learner_run(model_name: str, regime, pair: int) -> Learner:
    """One chosen-policy learner after every session of the regime."""
    snippet, engine = drills()[pair % len(drills())], memory_engine()
    spans = eligible_spans(snippet.code)
    rng = np.random.default_rng([pair, len(model_name), sum(map(ord, model_name + regime.name))])
    difficulty_seed = int(rng.integers(2**32))
    times = regime.sessions(rng)
    draws = rng.random((len(times), len(spans)))
    seeds = rng.integers(2**40, size=len(times))
    model = ground_truth(model_name, snippet.code, spans, difficulty_seed)
    learner = Learner(f"calibration-{pair}", model, CHOSEN, predicted=[])
    for t, u, seed in zip(times, draws, seeds):
        session(learner, engine, snippet, spans, regime.rate, int(seed), t, u)
    return learner


def row(name: str, pairs: list[tuple[float, bool]]) -> str:
    p = np.clip(np.array([x for x, _ in pairs]), 1e-6, 1 - 1e-6)
    y = np.array([ok for _, ok in pairs], dtype=float)
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    cells = []
    for low, high in zip(BINS, BINS[1:]):
        inside = (p >= low) & (p < high)
        cells.append(f"{y[inside].mean():.2f} ({inside.sum()})" if inside.any() else "–")
    return (
        f"| {name} | {len(p)} | {loss:.3f} | {np.mean((p - y) ** 2):.3f} | {p.mean():.3f} | {y.mean():.3f} | "
        + " | ".join(cells)
        + " |"
    )


def lines_row(name: str, learners: list[Learner]) -> str:
    """How many learners the app took to remember by lines at the end, and from which review."""
    first = [flags.index(True) + 1 for flags in (lr.by_lines for lr in learners) if True in flags]
    at_end = sum(bool(lr.by_lines and lr.by_lines[-1]) for lr in learners)
    median = f"{np.median(first):.0f}" if first else "–"
    reviews = np.median([len(lr.by_lines) for lr in learners])
    return f"| {name} | {at_end} of {len(learners)} | {len(first)} | {median} | {reviews:.0f} |"


def main(pairs: int, regimes: list[str]) -> int:
    bins = " | ".join(f"{low:.2f}–{min(high, 1):.2f}" for low, high in zip(BINS, BINS[1:]))
    for regime_name in regimes:
        runs = {name: [learner_run(name, REGIMES[regime_name], pair) for pair in range(pairs)] for name in MODELS}
        print(f"\nCalibration of the app's predicted recall, chosen policy, {regime_name}, {pairs} pairs")
        print("(observed recall per bin of predicted recall, blanks in brackets):\n")
        print(f"| model | blanks | log loss | Brier | predicted | recalled | {bins} |")
        print("|---|---|---|---|---|---|" + "---|" * (len(BINS) - 1))
        for name, learners in runs.items():
            print(row(MODELS[name].name, [x for lr in learners for x in lr.predicted]))
        print(f"\nRemembering by lines, as the app judged it ({regime_name}):\n")
        print("| model | by lines at the last review | ever | median first review | reviews |\n|---|---|---|---|---|")
        for name, learners in runs.items():
            print(lines_row(MODELS[name].name, learners))
    return 0
