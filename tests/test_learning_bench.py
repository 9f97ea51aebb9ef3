"""The learning benchmark's learners follow their papers, and a short run of it works end to end."""

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from fsrs import Card, Rating, Scheduler

from app.memory.policy import CHOSEN
from app.memory.review import line_by_line, missed_first, span_lines
from bench.learning.calibration_run import BINS, predictions
from bench.learning.calibration_run import row as calibration_row
from bench.learning.models import ACTR, FSRS6, HLR, Lines, Relearner, WrongAnswers, fsrs_next, fsrs_recall
from bench.learning.regimes import REGIMES, Regime
from bench.learning.runs import drills
from bench.learning.sim import run_pair

pytestmark = pytest.mark.unit


def test_fsrs6_curve_passes_its_published_points_and_updates_as_the_fsrs_package():
    assert abs(fsrs_recall(5.0, 5.0) - 0.9) < 1e-12  # R(t = S) = 0.9 by FSRS's definition of stability
    assert fsrs_recall(0.0, 5.0) == 1.0 and fsrs_recall(50.0, 5.0) < fsrs_recall(10.0, 5.0)
    scheduler, at = Scheduler(enable_fuzzing=False, learning_steps=()), datetime(2027, 1, 4, tzinfo=UTC)
    card = scheduler.review_card(Card(), Rating.Good, at)[0]
    for days, rating in ((3, Rating.Good), (9, Rating.Again), (2, Rating.Good), (0.2, Rating.Good)):
        later = at + timedelta(days=days)
        r = scheduler.get_card_retrievability(card, later)
        elapsed = (later - card.last_review).total_seconds() / 86400
        s, d = fsrs_next(
            np.array([card.stability]),
            np.array([card.difficulty]),
            np.array([r]),
            np.array([math.floor(elapsed)]),
            np.array([rating == Rating.Good]),
        )
        card = scheduler.review_card(card, rating, later)[0]
        assert abs(s[0] - card.stability) < 1e-9 and abs(d[0] - card.difficulty) < 1e-9, (days, rating)
        at = later
    model = FSRS6(50, np.random.default_rng(1))
    assert np.allclose(model.recall(model.s * model.scale), 0.9)


def test_hlr_recall_halves_every_half_life():
    model = HLR(20, np.random.default_rng(2))
    h = model.half_life(model.right, model.wrong)
    assert np.allclose(model.recall(h), 0.5) and np.allclose(model.recall(2 * h), 0.25)
    before = model.half_life(model.right, model.wrong)
    model.review(np.arange(20), 1.0, np.ones(20, bool))
    assert (model.half_life(model.right, model.wrong) > before).all()  # a right answer lengthens it


def test_actr_single_trace_and_the_spacing_effect_of_pavlik_and_anderson():
    one = ACTR(1, np.random.default_rng(3))
    one.alpha[:] = one.decays[0, 0] = 0.177  # the first trace decays at α
    age = 100 / (86400 * ACTR.H)  # 100 s of psychological time, in days
    m = one.activation(age)[0]
    assert abs(m - (-0.177 * math.log(100))) < 1e-9  # one trace: m = ln t^-α
    assert abs(one.recall_of(np.array(ACTR.TAU))[()] - 0.5) < 1e-12  # at the threshold τ recall is 0.5
    massed, spaced = ACTR(1, np.random.default_rng(4)), ACTR(1, np.random.default_rng(4))
    for k in range(1, 5):
        massed.review(np.array([0]), k * 0.0005, np.array([True]))  # every ~40 s
        spaced.review(np.array([0]), k * 1.0, np.array([True]))  # every day
    last_massed, last_spaced = 4 * 0.0005, 4.0
    # Spacing costs at short delays and pays at long ones (the paper's central result).
    assert massed.recall(last_massed + 0.001)[0] > spaced.recall(last_spaced + 0.001)[0] - 0.05
    assert spaced.recall(last_spaced + 30)[0] > massed.recall(last_massed + 30)[0]


def test_a_short_paired_run_drives_the_memory_code():
    regime = Regime("light", 20, 3)
    policies = {"random": "random", "chosen": CHOSEN, "oracle": "oracle"}
    out = run_pair("fsrs", regime, drills()[0], 0, policies)
    assert {len(out[n]["log"]) for n in policies} == {len(out["random"]["log"])}  # equal blanks per session
    assert out["chosen"]["log"] != out["random"]["log"]
    for name in policies:
        for h in (0, 7, 30):
            mean, known = out[name][h]
            assert 0 < mean < 1 and 0 <= known <= 1
        assert out[name][0][0] > out[name][7][0] > out[name][30][0]  # forgetting after the last session
    again = run_pair("fsrs", regime, drills()[0], 0, {"random": "random", "chosen": CHOSEN})
    assert again["chosen"][7] == out["chosen"][7]  # reproducible from its seeds
    assert set(REGIMES) == {"heavy", "light", "irregular"}


def test_the_relearner_starts_again_from_the_answer_shown():
    m = Relearner(3, np.random.default_rng(1))
    m.review(np.array([0, 1]), 2.0, np.array([True, False]))
    now = m.recall(2.0)
    assert now[0] == now[1] == 1.0 and now[2] < 0.9  # both just seen; the untested one fading
    assert m.s[0] > m.first[0] and m.s[1] == m.first[1]  # a late recall grows, a miss relearns


def test_in_the_lines_model_one_token_refreshes_its_line():
    m = Lines(4, np.random.default_rng(2), lines=np.array([0, 0, 1, 1]))
    before = m.recall(3.0)
    m.review(np.array([0]), 3.0, np.array([True]))
    after = m.recall(3.0)
    assert after[1] > before[1] and after[1] == 1.0  # tested through its line mate
    assert np.array_equal(after[2:], before[2:])


def test_a_wrong_version_is_answered_until_a_test_corrects_it():
    m = WrongAnswers(400, np.random.default_rng(3))
    believed = np.flatnonzero(m.wrong)
    assert 20 < len(believed) < 70 and np.all(m.recall(0.5)[believed] == 0.0)
    m.review(believed, 1.0, np.zeros(len(believed), dtype=bool))
    corrected = believed[~m.wrong[believed]]
    assert 0 < len(corrected) < len(believed) and np.all(m.recall(1.0)[corrected] == 1.0)


def test_review_orders_missed_first_within_a_share_and_line_by_line():
    assert missed_first([0, 1, 2, 3, 4, 5], [3, 4], 1) == [3, 0, 1, 2, 4, 5]
    assert missed_first([0, 1, 2, 3, 4, 5], [3, 4], 0) == [0, 1, 2, 3, 4, 5]
    assert line_by_line([0, 1, 2, 3], {0: 7, 1: 7, 2: 8, 3: 8}) == [0, 2, 1, 3]
    assert line_by_line([0, 1, 2, 3, 4, 5], dict(zip(range(6), [7, 7, 7, 8, 8, 8])), 2) == [0, 1, 3, 4, 2, 5]
    assert span_lines("a = 1\nb = a\n") == {0: 0, 1: 0, 2: 1, 3: 1}  # names and numbers; "=" is not eligible


def test_the_calibration_report_sets_each_blanks_prediction_beside_its_outcome():
    found = predictions("wrong", Regime("light", 20, 3), 0)
    assert len(found) > 20 and all(0 < p <= 1 for p, _ in found)
    assert {ok for _, ok in found} == {True, False}
    line = calibration_row("Wrong answers", found)
    assert line.startswith(f"| Wrong answers | {len(found)} | ") and line.count("|") == 6 + len(
        BINS
    )  # six columns and a bin each
