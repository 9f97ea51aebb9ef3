"""One pair of simulated learners on one snippet, driving the app's own memory code.

Each session: the learner's mask is chosen (a random mask as /s/<id>/drill draws it, or
`review_mask` from `token_memory` as /s/<id>/review does), each blank is recalled with the
ground-truth model's probability (the same uniform draw for every learner of the pair, so they
differ only by what they were asked), a missed blank is shown its answer, and the attempt goes
through `apply_attempts` inside a transaction, as the store writes it.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import create_engine
from sqlalchemy.pool import StaticPool

from app.db.records import AttemptRecord
from app.db.tables import metadata
from app.engine.mask import random_mask
from app.engine.tokens import eligible_spans
from app.memory import tables as _memory_tables  # noqa: F401 (registers the memory tables)
from app.memory.fsrs6 import recall
from app.memory.learner_model import learner_model
from app.memory.policy import Policy, read_once
from app.memory.review import review_mask, span_lines
from app.memory.state import card_version, first_seen, token_memory
from app.memory.update import apply_attempts

from .models import MODELS
from .regimes import Regime

START = datetime(2027, 1, 4, tzinfo=UTC)
HORIZONS = (0, 7, 30)
KNOWN = 0.9


def memory_engine():
    engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
    metadata.create_all(engine)
    return engine


@dataclass
class Learner:
    """One simulated learner: a ground-truth model and what the app stored about them."""

    key: str
    model: object
    policy: Policy | str  # a Policy, "random" or "oracle"
    log: list = field(default_factory=list)  # (day, span, recalled) of every blank
    predicted: list | None = None  # (the app's predicted recall, recalled) of every blank, when asked
    by_lines: list = field(default_factory=list)  # per review: whether the app took them to remember by lines


def outcomes(model, last: float) -> dict:
    out = {}
    for h in HORIZONS:
        p = model.recall(last + h)
        out[h] = (float(p.mean()), float((p >= KNOWN).mean()))
    return out


def choose(learner: Learner, db, snippet, spans, rate: int, seed: int, t: float) -> np.ndarray:
    """Positions (into `spans`) of the blanks this learner gets in this session."""
    n = len(spans)
    if learner.policy == "random":
        return np.array(random_mask(snippet.version, n, rate, seed))
    if learner.policy == "oracle":  # knows the true memory: the largest expected gain a week ahead
        k = len(random_mask(snippet.version, n, rate, seed))
        m = learner.model
        p = m.recall(t)
        gain = p * m.recall_after(t, t + 7, True) + (1 - p) * m.recall_after(t, t + 7, False) - m.recall(t + 7)
        return np.sort(np.argsort(-gain, kind="stable")[:k])
    at = START + timedelta(days=t)
    memory = token_memory(
        db, learner.key, snippet.id, snippet.version, snippet.code, card_version(db, learner.key, snippet.id)
    )
    model = learner_model(db, learner.key)  # fitted parameters, once stored, drive the mask
    learner.by_lines.append(model.lines.shared)
    review = review_mask(
        snippet.version,
        tuple(s.index for s in spans),
        rate,
        seed,
        memory,
        at,
        policy=learner.policy,
        scheduler=model.scheduler,
        retention=model.retention,
        first_seen=first_seen(db, learner.key, snippet.id),
        scales=model.scales,
        lines=span_lines(snippet.code),
        lines_shared=model.lines.shared,
    )
    position = {s.index: p for p, s in enumerate(spans)}
    return np.array(sorted(position[i] for i in review.chosen))


def _predicted(learner: Learner, db, snippet, spans, picked, t: float) -> list[float]:
    """What the app's model predicts of each blank's recall (a token never tested: read at first sight)."""
    memory = token_memory(
        db, learner.key, snippet.id, snippet.version, snippet.code, card_version(db, learner.key, snippet.id)
    )
    scheduler, seen = learner_model(db, learner.key).scheduler, first_seen(db, learner.key, snippet.id)
    now = (START + timedelta(days=t)).timestamp()
    out = []
    for p in picked.tolist():
        row = memory.get(spans[p].index)
        if row is None or row.stability is None:
            row = read_once(spans[p].index, min(seen or now, now), scheduler)
        out.append(recall(scheduler, (now - row.last_review) / 86400, row.stability))
    return out


def session(learner: Learner, engine, snippet, spans, rate: int, seed: int, t: float, u: np.ndarray) -> None:
    with engine.connect() as db:
        picked = choose(learner, db, snippet, spans, rate, seed, t)
        predicted = _predicted(learner, db, snippet, spans, picked, t) if learner.predicted is not None else None
    recalled = u[picked] < learner.model.recall(t)[picked]
    if predicted is not None:
        learner.predicted += list(zip(predicted, recalled.tolist()))
    learner.model.review(picked, t, recalled)
    blanks = tuple(
        {
            "span": spans[p].index,
            "key": f"s{spans[p].index}",
            "expected": spans[p].text,
            "given": spans[p].text if ok else "?",
            "state": "right" if ok else "wrong",
        }
        for p, ok in zip(picked.tolist(), recalled.tolist())
    )
    learner.log += [(t, spans[p].index, bool(ok)) for p, ok in zip(picked.tolist(), recalled.tolist())]
    mode = "random" if learner.policy == "random" else "review"
    record = AttemptRecord(
        learner.key,
        snippet.id,
        snippet.version,
        mode,
        rate,
        seed,
        {b["key"]: b["state"] == "right" for b in blanks},
        blanks=blanks,
        code=snippet.code,
    )
    with engine.begin() as db:
        apply_attempts(db, [(0, record, START + timedelta(days=t))])


def ground_truth(model_name: str, code: str, spans, difficulty_seed: int):
    """A fresh learner of `model_name` on these spans; the seed fixes its difficulties."""
    lines = np.array([code.count("\n", 0, s.start) for s in spans])
    return MODELS[model_name](len(spans), np.random.default_rng(difficulty_seed), lines)


def run_pair(model_name: str, regime: Regime, snippet, pair: int, policies: dict, engine=None) -> dict:
    """Outcomes of every learner of one pair: the same token difficulties, sessions and draws."""
    engine = engine or memory_engine()
    spans = eligible_spans(snippet.code)
    rng = np.random.default_rng([pair, len(model_name), sum(map(ord, model_name + regime.name))])
    difficulty_seed = int(rng.integers(2**32))
    times = regime.sessions(rng)
    draws = rng.random((len(times), len(spans)))
    seeds = rng.integers(2**40, size=len(times))
    out = {}
    for name, policy in policies.items():
        model = ground_truth(model_name, snippet.code, spans, difficulty_seed)
        learner = Learner(f"{name}-{pair}", model, policy)
        for t, u, seed in zip(times, draws, seeds):
            session(learner, engine, snippet, spans, regime.rate, int(seed), t, u)
        out[name] = outcomes(model, times[-1])
        out[name]["log"] = learner.log
    return out
