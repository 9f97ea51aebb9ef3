"""/metrics on a real uvicorn: one process, and several workers sharing PROMETHEUS_MULTIPROC_DIR."""

import subprocess
import sys
import time

import httpx
import pytest

from app.learn.drills import random_drill
from app.settings import PROJECT_DIR
from app.snippets.library import SnippetLibrary
from tests.metrics_helpers import samples, value
from tests.servers import free_port, start_server
from tests.site_client import own_site

pytestmark = pytest.mark.server
SNIPPET = "mlm-online-softmax"
URL = f"/s/{SNIPPET}/drill"


def submission(seed: int) -> dict:
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    snippet = library.get(SNIPPET)
    drill = random_drill(snippet, 20, seed)
    return {"version": snippet.version, "rate": 20, "seed": seed, "answers": {h.key: h.answer for h in drill.holes}}


def submit_all(url: str, count: int) -> None:
    for seed in range(count):
        with httpx.Client(
            base_url=url, timeout=30, headers=own_site(url)
        ) as http:  # a new connection each: any worker may take it
            response = http.post(URL, json=submission(seed), headers={"accept": "application/json"})
            assert response.status_code == 200, response.text


def test_a_real_server_counts_what_it_served(tmp_path):
    proc, url = start_server(tmp_path / "data", CODECLOZE_EXECUTION="false")
    try:
        submit_all(url, 3)
        scraped = samples(httpx.get(url + "/metrics").text)
    finally:
        proc.terminate()
        proc.wait(10)
    assert value(scraped, "codecloze_verdicts_total", status="not_run") == 3
    assert value(scraped, "codecloze_attempts_total", outcome="stored") == 3
    assert (
        value(scraped, "codecloze_http_requests_total", method="POST", route="/s/{snippet_id}/drill", status="200") == 3
    )
    assert value(scraped, "codecloze_http_requests_total", method="GET", route="/healthz", status="200") >= 1


def test_two_workers_sum_their_counts_in_the_multiprocess_directory(tmp_path):
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    port = free_port()
    env = {
        "CODECLOZE_DATA_DIR": str(tmp_path / "data"),
        "CODECLOZE_USE_CDN": "false",
        "CODECLOZE_EXECUTION": "false",
        "CODECLOZE_SECRET_KEY": "k" * 40,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "CODECLOZE_LOG_LEVEL": "WARNING",
        "PATH": "/usr/bin:/bin",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--workers", "2", "--port", str(port)],
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
                time.sleep(0.2)
        submit_all(url, 12)
        scraped = [samples(httpx.get(url + "/metrics", timeout=10).text) for _ in range(4)]
    finally:
        proc.terminate()
        proc.wait(20)
    workers = {p.name.rsplit("_", 1)[-1] for p in metrics_dir.glob("counter_*.db")}
    assert len(workers) == 2  # both workers wrote counts
    for each in scraped:  # whichever worker answers the scrape reports both workers' submissions
        assert value(each, "codecloze_verdicts_total", status="not_run") == 12
        assert value(each, "codecloze_attempts_total", outcome="stored") == 12
