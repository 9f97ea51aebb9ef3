"""What per-learner FSRS parameters buy: the Optimizer fitted halfway through on the learner's own
reviews (as the app's background fitter does), against the same learner on FSRS's defaults.

First, how well the default parameters predict each model's learners (log loss of the app's
predicted recall of every blank, random masks, heavy regime): the worst-fitted model is the one
where fitting is tried. Then per pair: two learners with the chosen policy, identical until
halfway (same draws, same masks); there one gets parameters fitted on its reviews so far,
stored where the app keeps them, and both go on. Compared: log loss of the second half's
predictions and recall at +0/+7/+30 days.
"""

import math
import time
from datetime import UTC, datetime, timedelta

import numpy as np
from fsrs import Rating, ReviewLog

from app.engine.tokens import eligible_spans
from app.memory.fitting import fitted_parameters
from app.memory.learner_model import save_parameters
from app.memory.policy import CHOSEN

from .models import MODELS
from .regimes import REGIMES
from .runs import drills
from .sim import START, Learner, ground_truth, memory_engine, outcomes, session


def log_loss(pairs) -> float:
    eps = 1e-6
    return -sum(math.log(max(eps, p)) if y else math.log(max(eps, 1 - p)) for p, y in pairs) / max(1, len(pairs))


def learner_run(model_name: str, regime, snippet, pair: int, fit_at: float | None):
    """The chosen-policy learner of `pair`; fitted once after the sessions before `fit_at` (a share)."""
    engine, spans = memory_engine(), eligible_spans(snippet.code)
    rng = np.random.default_rng([pair, len(model_name), sum(map(ord, model_name + regime.name))])
    difficulty_seed = int(rng.integers(2**32))
    times = regime.sessions(rng)
    draws = rng.random((len(times), len(spans)))
    seeds = rng.integers(2**40, size=len(times))
    learner = Learner(
        f"fit-{pair}", ground_truth(model_name, snippet.code, spans, difficulty_seed), CHOSEN, predicted=[]
    )
    half, fit_seconds, fitted_on, second_half_from = len(times) // 2, 0.0, 0, 0
    for n, (t, u, seed) in enumerate(zip(times, draws, seeds)):
        if fit_at is not None and n == half:
            started = time.monotonic()
            logs = [
                ReviewLog(span + 1, Rating.Good if ok else Rating.Again, START + timedelta(days=day), None)
                for day, span, ok in learner.log
            ]
            parameters = fitted_parameters(logs)
            with engine.begin() as db:
                save_parameters(db, learner.key, parameters, len(logs), datetime.now(UTC))
            fit_seconds, fitted_on = time.monotonic() - started, len(logs)
        if n == half:
            second_half_from = len(learner.predicted)
        session(learner, engine, snippet, spans, regime.rate, int(seed), t, u)
    return learner, times[-1], learner.predicted[second_half_from:], fit_seconds, fitted_on


def main(pairs: int) -> int:
    regime = REGIMES["heavy"]
    print("Log loss of the app's predicted recall with FSRS's default parameters (chosen policy, heavy, 2 pairs):")
    losses = {}
    for name in MODELS:
        runs = [learner_run(name, regime, drills()[p % 8], p, None) for p in range(2)]
        losses[name] = np.mean([log_loss(r[0].predicted) for r in runs])
        print(f"- {MODELS[name].name}: {losses[name]:.3f}")
    worst = max(losses, key=losses.get)
    # The largest snippets: halfway, their learners have more reviews than the Optimizer's minimum (512).
    big = sorted(drills(), key=lambda s: -len(eligible_spans(s.code)))
    print(f"\nFitted halfway in {MODELS[worst].name} (heavy, {pairs} pairs on the largest snippets):\n")
    print(
        "| pair | reviews fitted on | fit s | log loss 2nd half default | fitted | recall +7 default | fitted "
        "| +30 default | fitted |\n|---|---|---|---|---|---|---|---|---|"
    )
    rows = []
    for p in range(pairs):
        default = learner_run(worst, regime, big[p % 2], p, None)
        fitted = learner_run(worst, regime, big[p % 2], p, 0.5)
        d_out, f_out = outcomes(default[0].model, default[1]), outcomes(fitted[0].model, fitted[1])
        row = (log_loss(default[2]), log_loss(fitted[2]), d_out[7][0], f_out[7][0], d_out[30][0], f_out[30][0])
        rows.append(row)
        print(f"| {p} | {fitted[4]} | {fitted[3]:.0f} | " + " | ".join(f"{x:.3f}" for x in row) + " |")
    mean = np.mean(rows, axis=0)
    print("| mean | | | " + " | ".join(f"{x:.3f}" for x in mean) + " |")
    return 0
