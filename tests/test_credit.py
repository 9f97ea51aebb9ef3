"""Execution credit over HTTP: a non-matching answer that passes is 运行接受 only where the version's
check-strength analysis found the position caught; comments in answers are refused."""

import re
import time

import pytest

from app.db import strength_rows
from app.engine.tokens import eligible_spans
from app.learn.drills import random_drill
from tests.helpers import drill_form, right_answers

JSON = {"accept": "application/json"}
DRILLS = ("mlm-online-softmax", "mlm-blocked-attention", "mlm-flash-forward")
NONSENSE = "zq_nonsense"


def analysed(client, snippet_id: str, timeout: float = 300) -> dict:
    """Runs the version's analysis in the app's own loop (as an upload would) and waits for its row."""
    app = client.app
    snippet, engine = app.state.library.get(snippet_id), app.state.store.engine

    async def start():
        app.state.strength_jobs.start(snippet, app.state.sandbox, engine)

    if (strength_rows.load(engine, snippet.id, snippet.version) or {}).get("state") != "complete":
        client.portal.call(start)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = strength_rows.load(engine, snippet.id, snippet.version)
        if row and row["state"] in ("complete", "failed"):
            assert row["state"] == "complete", row["error"]
            return row
        time.sleep(0.5)
    raise AssertionError(f"the analysis of {snippet_id} did not finish in {timeout} s")


def states(response) -> dict[str, str]:
    assert response.status_code == 200, response.text[:300]
    return {b["key"]: b["state"] for b in response.json()["result"]["blanks"]}


def covering_masks(app, snippet_id: str, rate: int = 10):
    """(seed, key, position) for every eligible position, each in some mask of `rate`."""
    snippet = app.state.library.get(snippet_id)
    todo, seed = {s.index for s in eligible_spans(snippet.code)}, 0
    while todo:
        for hole in random_drill(snippet, rate, seed).holes:
            if hole.span[0] in todo:
                todo.discard(hole.span[0])
                yield seed, hole.key, hole.span[0]
        seed += 1


def blank_at(snippet, position: int, rate: int = 10) -> tuple[int, str]:
    """The first seed whose mask blanks `position` alone, and that blank's key."""
    for seed in range(1000):
        for hole in random_drill(snippet, rate, seed).holes:
            if hole.span == (position, position):
                return seed, hole.key
    raise AssertionError(f"no mask of rate {rate} blanks position {position}")


@pytest.mark.parametrize("snippet_id", DRILLS)
def test_the_bundled_checks_catch_every_mutant_that_is_not_equivalent(running_client, snippet_id):
    report = analysed(running_client, snippet_id)["report"]
    assert report["complete"] and report["positions"]
    assert report["survivors"] == [], report["survivors"]
    assert report["counts"]["weak"] == 0 and report["counts"]["untested"] == 0
    # Blind positions are only those whose every mutant is likely equivalent (`dim=-1` → `dim=+1` on 2-D).
    for position in report["positions"]:
        if position["state"] == "blind":
            assert position["mutants"] and all(m["equivalent"] for m in position["mutants"]), position


@pytest.mark.parametrize("snippet_id", DRILLS)
def test_a_nonsense_name_in_any_single_blank_is_never_accepted_by_execution(running_client, snippet_id):
    app = running_client.app
    analysed(running_client, snippet_id)
    seen = 0
    for seed, key, _position in covering_masks(app, snippet_id):
        form = drill_form(app, snippet_id, 10, seed, **{key: NONSENSE})
        marked = states(running_client.post(f"/s/{snippet_id}/drill", data=form, headers=JSON))
        assert marked[key] in ("wrong", "unproven"), (seed, key)
        assert all(state == "right" for k, state in marked.items() if k != key)
        seen += 1
    assert seen == len(eligible_spans(app.state.library.get(snippet_id).code))


def test_nope_for_d_in_n_d_equals_q_shape_is_wrong(running_client):
    app, snippet_id = running_client.app, "mlm-flash-forward"
    snippet = app.state.library.get(snippet_id)
    d = next(s for s in eligible_spans(snippet.code) if s.text == "d")  # `N, d = Q.shape`, the first d
    assert snippet.code[d.start - 3 : d.end + 10] == "N, d = Q.shape"
    seed, key = blank_at(snippet, d.index)
    data = running_client.post(
        f"/s/{snippet_id}/drill", data=drill_form(app, snippet_id, 10, seed, **{key: "nope"}), headers=JSON
    ).json()["result"]
    assert data["run"]["status"] != "passed" and "NameError" in data["run"]["message"]
    assert [b["state"] for b in data["blanks"] if b["key"] == key] == ["wrong"]


def test_a_passing_answer_is_accepted_only_at_caught_positions(running_client):
    app, snippet_id = running_client.app, "ex4-flash-forward"
    snippet = app.state.library.get(snippet_id)
    answers = right_answers(app, snippet_id)
    key = next(k for k, v in answers.items() if v == "torch.max(m_i, m_ij)")
    answers[key] = "torch.maximum(m_i, m_ij)"
    form = {"version": snippet.version, **answers}
    analysed(running_client, snippet_id)
    response = running_client.post(f"/s/{snippet_id}", data=form)
    assert re.search(rf'class="blank accepted" name="{key}"', response.text)
    assert "另有 1 个空与参考答案不同，但代码通过了验证" in response.text
    assert states(running_client.post(f"/s/{snippet_id}", data=form, headers=JSON))[key] == "accepted"


def test_a_passing_answer_at_a_blind_position_counts_as_wrong_and_says_why(running_client):
    """`l = 0.0` in online softmax: l is multiplied by exp(-inf) = 0 first, so `0` or `1.0` pass any check."""
    app, snippet_id = running_client.app, "mlm-online-softmax"
    snippet = app.state.library.get(snippet_id)
    report = analysed(running_client, snippet_id)["report"]
    zero = next(p for p in report["positions"] if p["text"] == "0.0")
    assert zero["state"] == "blind" and zero["line_text"].strip() == "l = 0.0"
    seed, key = blank_at(snippet, zero["index"])
    form = drill_form(app, snippet_id, 10, seed, **{key: "1.0"})
    data = running_client.post(f"/s/{snippet_id}/drill", data=form, headers=JSON).json()["result"]
    assert data["run"]["status"] == "passed"
    assert [b["state"] for b in data["blanks"] if b["key"] == key] == ["unproven"]
    assert data["correct"] == data["total"] - 1
    html = running_client.post(f"/s/{snippet_id}/drill", data=form).text
    assert re.search(rf'class="blank unproven" name="{key}"', html)
    assert "验证在这些位置无法确认答案" in html and "按错误计" in html
    english = running_client.post(f"/s/{snippet_id}/drill", data=form, headers={"accept-language": "en"}).text
    assert "the check cannot confirm this answer here" in english


def test_before_the_analysis_a_passing_answer_is_not_credited_and_the_analysis_starts(running_client):
    app, snippet_id = running_client.app, "ex2-online-softmax"
    snippet, engine = app.state.library.get(snippet_id), app.state.store.engine
    assert strength_rows.load(engine, snippet.id, snippet.version) is None
    answers = right_answers(app, snippet_id)
    key = next(k for k, v in answers.items() if v == "max(m, row[j].item())")
    answers[key] = "max(row[j].item(), m)"
    marked = states(running_client.post(f"/s/{snippet_id}", data={"version": snippet.version, **answers}, headers=JSON))
    assert marked[key] == "unproven"
    assert strength_rows.load(engine, snippet.id, snippet.version)["state"] in ("running", "complete")
    analysed(running_client, snippet_id)
    marked = states(running_client.post(f"/s/{snippet_id}", data={"version": snippet.version, **answers}, headers=JSON))
    assert marked[key] == "accepted"  # a span blank: every position in it is caught


@pytest.mark.parametrize("language, words", [("zh", "含有注释"), ("en", "contains a comment")])
def test_a_comment_in_an_answer_is_refused_in_the_ui_language_and_nothing_is_stored(client, language, words):
    app, snippet_id = client.app, "mlm-online-softmax"
    form = drill_form(app, snippet_id, 20, 5)
    key = next(k for k in form if k.startswith("s") and k[1:].isdigit())
    form[key] = form[key] + "  # note"
    response = client.post(f"/s/{snippet_id}/drill", data=form, headers={"accept-language": language})
    assert response.status_code == 422 and words in response.text
    assert attempts(app) == 0
    form[key] = form[key].replace("  # note", "")
    assert client.post(f"/s/{snippet_id}/drill", data=form, headers=JSON).status_code == 200
    assert attempts(app) == 1


def attempts(app) -> int:
    from sqlalchemy import func, select

    from app.db.tables import attempts as table

    with app.state.store.engine.connect() as db:
        return db.execute(select(func.count()).select_from(table)).scalar()


def test_a_hash_inside_a_string_is_no_comment(client):
    from app.engine.tokens import has_comment

    assert has_comment("size  # note") and has_comment("x#") and not has_comment("'#'") and not has_comment("x")
    assert not has_comment('f"{a}#"') and has_comment("'a' # b")
