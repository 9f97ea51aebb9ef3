"""Submissions run in the sandbox: verdicts beside the token score, through the HTTP path."""

import logging
import re

import pytest

from tests.helpers import drill_form, right_answers

pytestmark = pytest.mark.server

JSON = {"accept": "application/json"}


def run_of(response) -> dict:
    return response.json()["result"]["run"]


def test_right_answers_pass_the_check(running_client):
    form = drill_form(running_client.app, "mlm-online-softmax", 20, 5)
    run = run_of(running_client.post("/s/mlm-online-softmax/drill", data=form, headers=JSON))
    assert run["status"] == "passed" and "验证通过" in run["stdout"]


def test_page_shows_the_verdict_and_output(running_client):
    form = drill_form(running_client.app, "mlm-online-softmax", 20, 5)
    html = running_client.post("/s/mlm-online-softmax/drill", data=form).text
    assert "验证通过" in html and "程序输出" in html


def test_error_points_at_the_line_of_the_code_as_the_page_numbers_it(running_client):
    app = running_client.app
    snippet = app.state.library.get("ex3-blocked-matmul")
    answers = right_answers(app, "ex3-blocked-matmul")
    first = snippet.blanks[0]
    answers[f"c{first.index}"] = "Q[undefined_name]"
    data = running_client.post(
        "/s/ex3-blocked-matmul", data={"version": snippet.version, **answers}, headers=JSON
    ).json()
    run = data["result"]["run"]
    line = snippet.code[: first.start].count("\n") + 1
    assert run["status"] == "error" and "NameError" in run["message"]
    assert run["part"] == "code" and run["line"] == line
    html = running_client.post("/s/ex3-blocked-matmul", data={"version": snippet.version, **answers}).text
    assert f'data-error-line="{line}"' in html and f"代码 第 {line} 行" in html
    english = running_client.post("/s/ex3-blocked-matmul?lang=en", data={"version": snippet.version, **answers}).text
    running_client.cookies.delete("lang")  # the module's other tests read Chinese pages
    # A space between the place and Python's message (the Chinese colon is full width and needs none).
    assert f"Code, line {line}: <code>NameError" in english


def test_failed_check_shows_the_assertion_message(running_client):
    app = running_client.app
    snippet = app.state.library.get("ex2-online-softmax")
    answers = right_answers(app, "ex2-online-softmax")
    last = snippet.blanks[-1]
    answers[f"c{last.index}"] = "math.exp(row[j].item() - m) / l / 2"
    run = run_of(
        running_client.post("/s/ex2-online-softmax", data={"version": snippet.version, **answers}, headers=JSON)
    )
    assert run["status"] == "failed" and "online_softmax 结果不正确" in run["message"]


def test_an_endless_answer_times_out_and_the_next_one_runs(running_client):
    snippet = running_client.app.state.library.get("ex1-attention-memory")
    answers = right_answers(running_client.app, "ex1-attention-memory")
    answers["c0"] = "any(iter(int, 1))"  # int() is 0 forever
    run = run_of(
        running_client.post("/s/ex1-attention-memory", data={"version": snippet.version, **answers}, headers=JSON)
    )
    # Whichever limit a loaded machine reaches first, the message names it with its seconds.
    assert run["status"] == "timeout"
    assert re.search(r"(CPU time limit \(2 s\)|wall-clock limit \(\d+ s\)) reached", run["message"])
    answers["c0"] = "N * d * bytes_per_float"
    run = run_of(
        running_client.post("/s/ex1-attention-memory", data={"version": snippet.version, **answers}, headers=JSON)
    )
    assert run["status"] == "passed"


def test_health_lists_active_protections(running_client):
    data = running_client.get("/healthz").json()
    assert (
        data["execution"] == "on"
        and data["protections"]
        and all(isinstance(v, bool) for v in data["protections"].values())
    )
    assert {"cgroup_memory", "cgroup_pids", "cgroup_cpu", "minimal_root"} <= set(data["protections"])
    accounting = data["accounting"]
    assert accounting["tree_limits"] in ("cgroup", "polling")
    assert (accounting["tree_limits"] == "cgroup") == data["protections"]["cgroup_memory"]
    assert accounting["root_view"] and all(p.startswith("/") for p in accounting["root_view"])


def test_a_bundled_exercise_is_judged_by_its_shipped_analysis_from_the_first_answer(running_client):
    """The bundled course ships its check-strength analyses (snippets/strength/): the server's first
    verdict is the one it will always give (tests/test_credit.py and test_verdicts_http.py have the rest)."""
    app = running_client.app
    snippet = app.state.library.get("ex4-flash-forward")
    assert running_client.get("/readyz").json()["ready"]
    answers = right_answers(app, "ex4-flash-forward")
    key = next(k for k, v in answers.items() if v == "torch.max(m_i, m_ij)")
    answers[key] = "torch.maximum(m_i, m_ij)"
    response = running_client.post("/s/ex4-flash-forward", data={"version": snippet.version, **answers})
    assert re.search(rf'class="blank accepted" name="{key}"', response.text)
    data = running_client.post(
        "/s/ex4-flash-forward", data={"version": snippet.version, **answers}, headers=JSON
    ).json()
    assert data["result"]["run"]["status"] == "passed" and not data["result"]["provisional"]
    assert [b["state"] for b in data["result"]["blanks"] if b["key"] == key] == ["accepted"]
    assert not app.state.strength_jobs.busy()  # nothing was analysed: the shipped analysis was complete


def test_the_log_line_splits_the_sandbox_time_into_the_wait_and_the_run(running_client, caplog):
    snippet = running_client.app.state.library.get("ex1-attention-memory")
    answers = right_answers(running_client.app, "ex1-attention-memory")
    with caplog.at_level(logging.INFO, logger="codecloze.submissions"):
        run = run_of(
            running_client.post("/s/ex1-attention-memory", data={"version": snippet.version, **answers}, headers=JSON)
        )
    assert run["status"] == "passed"
    line = next(r for r in caplog.records if r.name == "codecloze.submissions").__dict__
    assert line["run_ms"] > 0 and line["queue_ms"] >= 0
    assert abs(line["run_ms"] + line["queue_ms"] - line["sandbox_ms"]) < 0.05
    phases = ("reading", "scoring", "queue", "run", "credit", "commit", "render")
    assert sum(line[f"{p}_ms"] for p in phases) <= line["total_ms"] + 0.1
