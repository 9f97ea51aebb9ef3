"""Cells of the benchmark: a model × a regime, ≥ 30 pairs, every policy against the same random learner."""

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from app.memory.policy import CHOSEN, WEAKEST, Policy
from app.snippets.library import SnippetLibrary

from .regimes import REGIMES
from .sim import HORIZONS, run_pair

ROOT = Path(__file__).resolve().parents[2]
# The chosen policy without its missed-tokens share: the candidates below were measured against it.
BEFORE = replace(CHOSEN, name="gain-7d-before", relearn_share=0.0, relearn_after=0.0)
POLICIES = {
    "random": "random",
    "weakest (before)": WEAKEST,
    "slip": Policy("slip", order="slip"),
    "gain due-first": Policy("gain-due", order="gain_due"),
    f"{CHOSEN.name} (chosen)": CHOSEN,
    "gain-7d (before)": BEFORE,
    "gain-7d (per token)": replace(CHOSEN, name="gain-7d-per-token", by_lines=False),
    "gain-7d relearn": replace(BEFORE, name="gain-7d-relearn", relearn=True),
    "gain-7d calibrated": replace(BEFORE, name="gain-7d-calibrated", calibrated=True),
    "calibrated relearn-1/3": replace(BEFORE, name="gain-7d-calibrated-relearn", calibrated=True, relearn_share=1 / 3),
    "relearn-1/3": replace(BEFORE, name="gain-7d-relearn-third", relearn_share=1 / 3),
    "relearn-1/6": replace(BEFORE, name="gain-7d-relearn-sixth", relearn_share=1 / 6),
    "relearn-1/3 after 20 h": replace(BEFORE, name="gain-7d-relearn-third-20h", relearn_share=1 / 3, relearn_after=20),
    "gain-7d per line": replace(BEFORE, name="gain-7d-per-line", per_line=1),
    "per line relearn-1/3": replace(BEFORE, name="gain-7d-per-line-relearn", per_line=1, relearn_share=1 / 3),
    "2 per line": replace(CHOSEN, name="gain-7d-2-per-line", per_line=2),
    "3 per line": replace(CHOSEN, name="gain-7d-3-per-line", per_line=3),
    "oracle": "oracle",
}


@lru_cache(maxsize=1)
def drills() -> list:
    """The bundled snippets, in a fixed order: pair i drills the i-th (mod 8)."""
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    return sorted(library.all(), key=lambda s: s.id)


def run_cell(model: str, regime: str, pairs: int, names: tuple[str, ...]) -> dict:
    """Per policy and horizon: the (mean, share known) of every pair."""
    policies = {n: POLICIES[n] for n in names}
    out = {n: {h: [] for h in HORIZONS} for n in names}
    for pair in range(pairs):
        result = run_pair(model, REGIMES[regime], drills()[pair % len(drills())], pair, policies)
        for n in names:
            for h in HORIZONS:
                out[n][h].append(result[n][h])
    return {
        "model": model,
        "regime": regime,
        "pairs": pairs,
        "outcomes": {n: {h: np.array(v) for h, v in hs.items()} for n, hs in out.items()},
    }
