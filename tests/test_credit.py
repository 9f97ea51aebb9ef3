"""Execution credit over HTTP: a non-matching answer that passes is 运行接受 only where the version's
check-strength analysis found the position caught; comments in answers are refused."""

import re
import time

import pytest

from app.db import strength_rows
from app.engine.tokens import eligible_spans
from app.learn.drills import random_drill
from app.settings import PROJECT_DIR
from tests.helpers import drill_form, right_answers

pytestmark = pytest.mark.server

JSON = {"accept": "application/json"}
DRILLS = ("mlm-online-softmax", "mlm-blocked-attention", "mlm-flash-forward")
BUNDLED = sorted(path.stem for path in (PROJECT_DIR / "snippets" / "strength").glob("*.json"))
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
def test_the_bundled_checks_let_through_only_mutants_that_look_equivalent_and_no_such_place_credits(
    running_client, snippet_id
):
    report = analysed(running_client, snippet_id)["report"]
    assert report["complete"] and report["positions"] and report["counts"]["untested"] == 0
    # What survives looks equivalent (`dim=-1` → `dim=+1` on 2-D): a hint with its reasons, no verdict.
    assert all(m["likely_equivalent"] and m["reasons"] for m in report["survivors"]), report["survivors"]
    open_places = {m["index"] for m in report["survivors"]}
    for position in report["positions"]:
        assert (position["index"] in open_places) == (position["state"] in ("weak", "blind")), position


def test_every_bundled_snippet_ships_the_analysis_of_its_own_code_and_check():
    from app.snippets.library import SnippetLibrary
    from app.snippets.shipped_strength import shipped
    from tests.servers import SNIPPETS

    library = SnippetLibrary()
    library.load_dir(SNIPPETS)
    missing = [s.id for s in library.all() if shipped(SNIPPETS, s) is None]
    assert not missing, f"run: python -m app.snippets check --strength --write-analysis snippets/*.md ({missing})"


@pytest.mark.parametrize("snippet_id", BUNDLED)
def test_a_shipped_analysis_is_what_a_fresh_one_finds(running_client, snippet_id):
    """The shipped analyses were made one job per mutant; a fresh one runs many mutants per job and
    must find every mutant's status and every position's state the same."""
    from app.snippets.shipped_strength import shipped
    from app.snippets.strength import check_strength
    from app.snippets.strength_report import report_data
    from tests.servers import SNIPPETS

    app = running_client.app
    snippet = app.state.library.get(snippet_id)

    async def fresh():
        return report_data(await check_strength(snippet, app.state.sandbox), snippet)

    made, kept = running_client.portal.call(fresh), shipped(SNIPPETS, snippet)["report"]

    def essence(report):
        return (
            [(p["index"], p["state"], [m["status"] for m in p["mutants"]]) for p in report["positions"]],
            [(m["index"], m["replacement"], m["likely_equivalent"], m["reasons"]) for m in report["survivors"]],
        )

    assert essence(made) == essence(kept)


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
    assert "检查分辨不出这样写是否正确" in html and "按错误计" in html and "检查强度分析" not in html
    english = running_client.post(f"/s/{snippet_id}/drill", data=form, headers={"accept-language": "en"}).text
    assert "the check cannot tell whether they are right written this way" in english


def test_a_bundled_snippet_without_its_analysis_is_analysed_at_start_up_and_judges_early_answers_again(tmp_path):
    """An edited bundled snippet has no shipped analysis: the server makes it at start-up, says it
    is not ready until then, and an answer given meanwhile is judged again when it completes."""
    from app.main import create_app
    from app.settings import Settings
    from tests.servers import copy_snippets
    from tests.site_client import SiteClient

    snippets = copy_snippets(tmp_path)
    path = snippets / "ex2-online-softmax.md"
    path.write_text(path.read_text().replace("```python check\n", "```python check\n# 改过的检查\n", 1))
    settings = Settings(data_dir=tmp_path / "data", snippets_dir=snippets, use_cdn=False, cpu_seconds=2, wall_seconds=4)
    with SiteClient(create_app(settings)) as client:
        app, snippet_id = client.app, "ex2-online-softmax"
        waiting = client.get("/readyz")
        assert waiting.status_code == 503 and waiting.json()["waiting"] == [snippet_id]
        answers = right_answers(app, snippet_id)
        key = next(k for k, v in answers.items() if v == "max(m, row[j].item())")
        answers[key] = "max(row[j].item(), m)"
        version = app.state.library.get(snippet_id).version
        first = client.post(f"/s/{snippet_id}", data={"version": version, **answers}, headers=JSON).json()["result"]
        assert states_of(first)[key] == "unproven" and first["provisional"]
        deadline = time.monotonic() + 300
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the start-up analysis did not complete"
            time.sleep(0.5)
        again = client.post(f"/s/{snippet_id}", data={"version": version, **answers}, headers=JSON).json()["result"]
        assert states_of(again)[key] == "accepted"  # a span blank: every position in it is caught
        deadline = time.monotonic() + 30
        while not client.get("/me", headers=JSON).json()["rejudged"]:
            assert time.monotonic() < deadline, "the early answer was not judged again"
            time.sleep(0.3)


def states_of(result: dict) -> dict[str, str]:
    return {b["key"]: b["state"] for b in result["blanks"]}
