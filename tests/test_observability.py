"""What an operator sees: /metrics moves by exactly what happened, labels stay bounded, one JSON
log line per submission without answer text, /healthz reports the fork server; counting never
breaks a request."""

import json
import logging
import os
import random
import signal
import string
import threading
import time

import pytest

from app.main import create_app
from app.settings import Settings
from tests.helpers import drill_form
from tests.live import ThreadedServer
from tests.metrics_helpers import moved, scrape, value
from tests.site_client import SiteClient
from tests.test_durability import locked
from tests.test_resilience import endless_exercise

pytestmark = pytest.mark.server

JSON = {"accept": "application/json"}
SNIPPET = "mlm-online-softmax"
URL = f"/s/{SNIPPET}/drill"
ROUTE = "/s/{snippet_id}/drill"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real sandbox with one worker, so a second job has to wait in the queue."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("obs"), use_cdn=False, cpu_seconds=2, wall_seconds=3, workers=1, queue=4
    )
    with ThreadedServer(create_app(settings)) as live:
        yield live


def syntax_error_form(app, seed: int) -> dict:
    return {
        k: ("(" if k.startswith("s") and k[1:].isdigit() else v) for k, v in drill_form(app, SNIPPET, 20, seed).items()
    }


def test_submissions_move_verdicts_attempts_and_histograms_by_their_number(server):
    with server.client() as http:
        before = scrape(http)
        for seed in (1, 2):
            assert http.post(URL, data=drill_form(server.app, SNIPPET, 20, seed), headers=JSON).status_code == 200
        broken = http.post(URL, data=syntax_error_form(server.app, 3), headers=JSON).json()
        assert broken["result"]["run"]["status"] == "error"
        empty = drill_form(server.app, SNIPPET, 20, 4)
        empty[next(k for k in empty if k.startswith("s") and k[1:].isdigit())] = ""
        assert http.post(URL, data=empty, headers=JSON).json()["result"]["run"] is None
        after = scrape(http)
    assert moved(before, after, "codecloze_verdicts_total", status="passed") == 2
    assert moved(before, after, "codecloze_verdicts_total", status="error") == 1
    assert moved(before, after, "codecloze_verdicts_total", status="not_run") == 1
    assert moved(before, after, "codecloze_attempts_total", outcome="stored") == 4
    assert moved(before, after, "codecloze_attempts_total", outcome="failed") == 0
    assert moved(before, after, "codecloze_submission_seconds_count") == 4
    assert moved(before, after, "codecloze_sandbox_seconds_count") == 3  # the empty one never ran
    assert moved(before, after, "codecloze_sandbox_seconds_sum") > 0.01  # ~20 ms a job at least
    assert moved(before, after, "codecloze_http_requests_total", method="POST", route=ROUTE, status="200") == 4
    assert moved(before, after, "codecloze_http_request_seconds_count", route=ROUTE) == 4
    assert moved(before, after, "codecloze_http_requests_total", method="GET", route="/metrics", status="200") == 1
    assert value(after, "codecloze_sandbox_queue_depth") == 0 and value(after, "codecloze_sandbox_jobs_running") == 0


def test_a_job_waiting_for_the_only_worker_is_the_queue_depth(server):
    slow = threading.Thread(
        target=lambda: server.client().post("/s/ex1-attention-memory", data=endless_exercise(server.app))
    )
    slow.start()
    time.sleep(0.5)  # the only worker runs the endless job (3 s wall limit)
    waiting = threading.Thread(target=lambda: server.client().post(URL, data=drill_form(server.app, SNIPPET, 20, 5)))
    waiting.start()
    time.sleep(0.5)  # another learner's job now waits for it
    with server.client() as http:
        during = scrape(http)
        slow.join(30)
        waiting.join(30)
        after = scrape(http)
    assert value(during, "codecloze_sandbox_queue_depth") == 1
    assert value(during, "codecloze_sandbox_jobs_running") == 1
    assert value(after, "codecloze_sandbox_queue_depth") == 0 and value(after, "codecloze_sandbox_jobs_running") == 0
    assert moved(during, after, "codecloze_verdicts_total", status="timeout") == 1


def test_healthz_reports_the_fork_server_and_a_restart_is_counted(server):
    with server.client() as http:
        health = http.get("/healthz").json()
        first = health["fork_server"]
        assert health["status"] == "ok" and first["state"] == "running" and first["restarts"] == 0
        assert first["pid"] > 0 and first["ready"] >= 1 and first["processes"] >= 2 and first["pss_bytes"] > 0
        assert "tree_limits" in health["accounting"]  # cgroups or polling, as before
        before = scrape(http)
        os.kill(first["pid"], signal.SIGKILL)
        # Either /healthz sees the dead server (down, degraded) or the next question to it already
        # replaced it (a new pid): both are honest; a "running" state with the dead pid is not.
        deadline = time.monotonic() + 30  # a loaded host notices the death later
        while time.monotonic() < deadline:
            seen = http.get("/healthz").json()
            if seen["fork_server"]["state"] != "running" or seen["fork_server"]["pid"] != first["pid"]:
                break
            time.sleep(0.05)
        assert seen["fork_server"]["pid"] != first["pid"] or seen["fork_server"]["state"] != "running"
        if seen["fork_server"]["state"] != "running":
            assert seen["status"] == "degraded"
        form = drill_form(server.app, SNIPPET, 20, 6)
        assert http.post(URL, data=form, headers=JSON).json()["result"]["run"]["status"] == "passed"
        after = scrape(http)
        again = http.get("/healthz").json()["fork_server"]
    assert moved(before, after, "codecloze_sandbox_restarts_total") == 1
    assert again["state"] == "running" and again["restarts"] == 1 and again["pid"] != first["pid"]


@pytest.fixture
def busy_settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", execution=False, use_cdn=False, db_busy_ms=200)


def test_a_refused_attempt_counts_as_failed_not_stored(busy_settings):
    with SiteClient(create_app(busy_settings)) as client:
        before = scrape(client)
        assert client.post(URL, data=drill_form(client.app, SNIPPET, 20, 1), headers=JSON).status_code == 200
        with locked(busy_settings):
            refused = client.post(URL, data=drill_form(client.app, SNIPPET, 20, 2), headers=JSON)
            assert refused.status_code == 503 and refused.json()["result"]["saved"] is False
        after = scrape(client)
    assert moved(before, after, "codecloze_attempts_total", outcome="stored") == 1
    assert moved(before, after, "codecloze_attempts_total", outcome="failed") == 1
    assert moved(before, after, "codecloze_verdicts_total", status="not_run") == 2
    assert moved(before, after, "codecloze_http_requests_total", method="POST", route=ROUTE, status="503") == 1


def test_random_paths_share_bounded_labels(client):
    junk = ["".join(random.choices(string.ascii_lowercase, k=12)) for _ in range(40)]
    for word in junk:
        assert client.get(f"/{word}/{word}").status_code == 404
        assert client.get(f"/s/{word}").status_code == 404
    client.request("BREW", "/")  # a made-up method is "other", not a label of its own
    text = client.get("/metrics").text
    assert not any(word in text for word in junk)
    series = [line for line in text.splitlines() if line.startswith("codecloze_http_requests_total{")]
    assert len(series) <= 6, series  # GET/BREW on unmatched and on the two routes hit, /metrics
    scraped = scrape(client)
    assert value(scraped, "codecloze_http_requests_total", method="GET", route="unmatched", status="404") == 40
    assert value(scraped, "codecloze_http_requests_total", method="GET", route="/s/{snippet_id}", status="404") == 40


def test_one_json_log_line_per_submission_without_answer_text(client, caplog):
    form = drill_form(client.app, SNIPPET, 20, 9)
    key = next(k for k in form if k.startswith("s") and k[1:].isdigit())
    form[key] = "secret_answer_text_42"
    with caplog.at_level(logging.INFO, logger="codecloze.submissions"):
        assert client.post(URL, data=form, headers=JSON).status_code == 200
    records = [r for r in caplog.records if r.name == "codecloze.submissions"]
    assert len(records) == 1
    handler = next(h for h in logging.getLogger("codecloze").handlers if h.formatter is not None)
    line = handler.format(records[0])
    assert "\n" not in line and "secret_answer_text_42" not in line
    data = json.loads(line)
    snippet = client.app.state.library.get(SNIPPET)
    assert data["message"] == "submission" and data["level"] == "INFO" and data["logger"] == "codecloze.submissions"
    assert (data["snippet"], data["version"], data["unit"], data["rate"]) == (SNIPPET, snippet.version, "token", 20)
    assert data["verdict"] == "not_run" and data["saved"] is True and data["sandbox_ms"] is None
    assert data["correct"] == data["blanks"] - 1 and data["blanks"] > 1
    assert 0 <= data["scoring_ms"] <= data["total_ms"]
    # every phase of it, in the time it took (not run: no wait for the sandbox, no run)
    phases = [data[f"{p}_ms"] for p in ("reading", "scoring", "credit", "commit", "render")]
    assert all(ms is not None and ms >= 0 for ms in phases) and data["queue_ms"] is data["run_ms"] is None
    assert sum(phases) <= data["total_ms"] and data["commit_ms"] > 0


def test_the_text_format_keeps_the_fields(tmp_path, caplog):
    with SiteClient(
        create_app(Settings(data_dir=tmp_path / "d", execution=False, use_cdn=False, log_format="text"))
    ) as client:
        with caplog.at_level(logging.INFO, logger="codecloze.submissions"):
            client.post(URL, data=drill_form(client.app, SNIPPET, 20, 1), headers=JSON)
        handler = next(h for h in logging.getLogger("codecloze").handlers if h.formatter is not None)
        line = handler.format(next(r for r in caplog.records if r.name == "codecloze.submissions"))
    assert "codecloze.submissions: submission" in line and f"snippet={SNIPPET}" in line and "verdict=not_run" in line


def test_a_warning_level_writes_no_submission_lines(client, caplog):
    assert client.app.state.settings.log_level == "WARNING"  # tests/conftest.py keeps test output quiet
    with caplog.at_level(logging.DEBUG):
        client.post(URL, data=drill_form(client.app, SNIPPET, 20, 1), headers=JSON)
    assert not [r for r in caplog.records if r.name == "codecloze.submissions"]


class Broken:
    def __getattr__(self, name):
        raise RuntimeError("the metrics backend is gone")


def test_a_metrics_failure_never_breaks_a_request(client, monkeypatch):
    metrics = client.app.state.metrics
    for name in ("requests", "request_seconds", "verdicts", "submission_seconds", "attempts"):
        monkeypatch.setattr(metrics, name, Broken())
    assert client.get("/").status_code == 200
    data = client.post(URL, data=drill_form(client.app, SNIPPET, 20, 1), headers=JSON).json()
    assert data["result"]["saved"] is True and data["result"]["correct"] == data["result"]["total"]
