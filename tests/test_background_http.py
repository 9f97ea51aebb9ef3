"""Background work through a real uvicorn with 2 workers: strength analyses take the background
budget (one job at a time here), never the learners' share. A teacher uploading 20 snippets and
asking 50 times more for their analyses, beside 4 honest learners: the learners' p99 verdict stays
under 1 s and none is told "busy"; one analysis runs at a time; asking again for a complete
analysis answers it; deleting a snippet stops its analysis."""

import concurrent.futures
import re
import threading
import time

import httpx
import pytest

from tests.servers import client_from, slow_answer_server
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.server

BEARER = {"authorization": f"Bearer {TOKEN}"}
ROUNDS = 1_000_000


def mix(a: int, b: int) -> int:
    total = 0
    for i in range(ROUNDS):
        total = (total * 31 + a * i - b) % 1000003
    return total


# Busy arithmetic: every mutant costs the CPU what a real check does.
BUSY = f"""---
title: Busy arithmetic
summary: an analysis that keeps a core busy
level: 1
---

```python
def mix(a, b):
    total = 0
    for i in range({{{{c1::{ROUNDS}}}}}):
        total = {{{{c2::(total * 31 + a * i - b) % 1000003}}}}
    return total
```

```python check
assert mix(3, 5) == {mix(3, 5)}, "mix 不对"
assert mix(7, 2) == {mix(7, 2)}, "mix 不对"
```
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with slow_answer_server(
        tmp_path_factory,
        "background",
        CODECLOZE_TEACHER_TOKEN=TOKEN,
        CODECLOZE_CPU_SECONDS="4",
        CODECLOZE_WALL_SECONDS="6",
        CODECLOZE_MEMORY_MB="256",
    ) as url:
        yield url


def fork_server(url: str) -> dict:
    return httpx.get(url + "/healthz").json()["fork_server"]


def analysis(teacher: httpx.Client, snippet_id: str) -> dict:
    response = teacher.get(f"/api/snippets/{snippet_id}/strength", headers=BEARER)
    assert response.status_code == 200, response.text[:300]
    return response.json()


def upload(teacher: httpx.Client, snippet_id: str) -> None:
    response = teacher.put(f"/api/snippets/{snippet_id}", headers=BEARER, content=BUSY.encode())
    assert response.status_code in (200, 201), response.text[:300]


def learner_verdicts(url: str, source: str, stop: threading.Event) -> list[tuple[int, float]]:
    """A learner with a history submitting a right answer again and again until `stop`."""
    http = client_from(url, source)
    page = httpx.get(url + "/s/slow-answer").text
    v = re.search(r'name="version" value="([^"]+)"', page).group(1)
    assert http.post("/s/slow-answer", data={"version": v, "c0": "0"}).status_code == 200
    out = []
    while not stop.is_set() or len(out) < 20:
        started = time.perf_counter()
        status = http.post("/s/slow-answer", data={"version": v, "c0": "0"}).status_code
        out.append((status, time.perf_counter() - started))
        time.sleep(0.1)
    return out


def test_twenty_uploads_and_fifty_requests_for_analyses_leave_honest_learners_their_share(served):
    teacher = client_from(served, "127.0.0.9")
    stop = threading.Event()
    pool = concurrent.futures.ThreadPoolExecutor(4)
    learners = [pool.submit(learner_verdicts, served, f"127.0.0.{n}", stop) for n in range(1, 5)]
    ids = [f"busy-{n}" for n in range(20)]
    samples = []
    for snippet_id in ids:
        upload(teacher, snippet_id)
        samples.append(fork_server(served))
    for n in range(50):
        response = teacher.post(f"/api/snippets/{ids[n % 20]}/strength", headers=BEARER)
        assert response.status_code == 202, response.text[:300]
        samples.append(fork_server(served))
    states = [analysis(teacher, snippet_id) for snippet_id in ids]
    stop.set()
    results = [r for future in learners for r in future.result(timeout=120)]
    pool.shutdown()

    statuses, seconds = [s for s, _ in results], sorted(t for _, t in results)
    assert statuses == [200] * len(results), statuses
    p99 = seconds[int(0.99 * (len(seconds) - 1))]
    assert p99 < 1.0, seconds[-5:]
    # the analyses did run, in the background budget and never beyond it
    assert any(s["background_in_use"] for s in samples), samples[-3:]
    assert all(s["background_in_use"] <= s["background_slots"] == 1 for s in samples), samples
    # one analysis under way at a time: the rest wait their turn
    under_way = [s for s in states if s["state"] == "running" and not s["queued"]]
    assert len(under_way) <= 1 and any(s["queued"] for s in states), states
    for snippet_id in ids:  # deleting them stops their analyses (the next test shows it alone)
        assert teacher.delete(f"/api/snippets/{snippet_id}", headers=BEARER).status_code == 200
    idle(served)


def idle(url: str, timeout: float = 15) -> dict:
    deadline = time.monotonic() + timeout
    while (server := fork_server(url))["background_in_use"] or server["jobs_running"]:
        assert time.monotonic() < deadline, server
        time.sleep(0.2)
    return server


def test_asking_again_for_a_complete_analysis_answers_it(served):
    teacher = client_from(served, "127.0.0.9")
    upload(teacher, "busy-done")
    deadline = time.monotonic() + 300
    while (found := analysis(teacher, "busy-done"))["state"] == "running":
        assert time.monotonic() < deadline, found
        time.sleep(0.5)
    assert found["complete"], found
    again = teacher.post("/api/snippets/busy-done/strength", headers=BEARER)
    assert again.status_code == 202 and again.json()["complete"], again.text[:300]
    assert again.json()["report"] == found["report"]
    time.sleep(0.5)
    assert fork_server(served)["background_in_use"] == 0  # nothing was started again
    assert analysis(teacher, "busy-done") == found


def test_deleting_a_snippet_stops_its_analysis(served):
    teacher = client_from(served, "127.0.0.9")
    upload(teacher, "busy-gone")
    deadline = time.monotonic() + 60
    while not fork_server(served)["background_in_use"]:  # its mutants are running
        assert time.monotonic() < deadline, "the analysis did not start"
        time.sleep(0.1)
    assert analysis(teacher, "busy-gone")["state"] == "running"
    assert teacher.delete("/api/snippets/busy-gone", headers=BEARER).status_code == 200
    stopped = time.monotonic()
    idle(served, timeout=5)
    assert time.monotonic() - stopped < 5
