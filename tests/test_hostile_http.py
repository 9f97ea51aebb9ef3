"""The hostile corpus through the real HTTP submission path, as whole snippets (a teacher's upload
runs its reference code) and as blank answers, against a real uvicorn server."""

import json
import statistics
import threading
import time
from pathlib import Path

import pytest

from app.main import create_app
from app.settings import Settings
from tests.live import ThreadedServer
from tests.sandbox.corpus import context_setup, load_corpus
from tests.sandbox.support import SECRET, job_uids, leftover_processes, settled_status
from tests.sandbox.test_corpus import PWNED, World, _sandbox_owned_files
from tests.servers import copy_snippets

pytestmark = pytest.mark.server

TOKEN = "hostile-test-token"
BEARER = {"authorization": f"Bearer {TOKEN}"}
CORPUS = load_corpus()
ONE_LINERS = [c for c in CORPUS if c[0] in ("os_system_answer", "span_breakout_statements", "span_breakout_syntax")]
ANSWER_SNIPPET = """---
title: Hostile answer
summary: a blank whose answer is hostile
level: 1
---

```python setup
{setup}
```

```python
value = {{{{c1::0}}}}
```

```python check
assert value == 0, "value 应为 0"
```
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory, snippets_dir_module):
    data = tmp_path_factory.mktemp("hostile-data")
    (data / "secret.txt").write_text(SECRET)
    world = World(data)
    (snippets_dir_module / "hostile-answer.md").write_text(
        ANSWER_SNIPPET.format(setup=context_setup(**world.names)), encoding="utf-8"
    )
    settings = Settings(
        data_dir=data,
        snippets_dir=snippets_dir_module,
        use_cdn=False,
        teacher_token=TOKEN,
        cpu_seconds=1,
        wall_seconds=2,
        memory_mb=256,
        workers=2,
        database_url=f"sqlite:///{world.names['DATABASE_FILE']}",
    )  # outside the data dir
    with ThreadedServer(create_app(settings)) as server:
        world.names["WEB_PORT"] = server.port  # the web server's own port
        yield server, world
    world.close()


@pytest.fixture(scope="module")
def snippets_dir_module(tmp_path_factory):
    return copy_snippets(tmp_path_factory.mktemp("snips"))


def settled(server: ThreadedServer) -> dict:
    sandbox = server.app.state.sandbox
    return settled_status(lambda: server.call(sandbox.status()), sandbox.workers)


def analyses_done(server: ThreadedServer, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while server.app.state.strength_jobs.busy():
        assert time.monotonic() < deadline, "a strength analysis did not finish"
        time.sleep(0.2)


def assert_contained(server: ThreadedServer, world: World, http) -> None:
    assert http.get("/healthz").json()["status"] == "ok"
    normal = http.put("/api/snippets/normal-after", headers=BEARER, content=ANSWER_SNIPPET.format(setup="").encode())
    assert normal.json()["verdict"]["status"] == "passed"
    http.delete("/api/snippets/normal-after", headers=BEARER)
    analyses_done(server)  # an upload starts its strength analysis: its jobs are honest, not leftovers
    assert leftover_processes(settled(server)) == []
    assert not Path(world.names["OUTSIDE_FILE"]).exists() and not Path(world.names["HOST_TMP_FILE"]).exists()
    assert not PWNED.exists()
    assert (world.canary / "keep.txt").read_text() == "keep"
    assert world.connections() == 0
    assert _sandbox_owned_files(job_uids(settled(server))) == []


def snippet_for(source: str, world: World) -> str:
    return (
        f"---\ntitle: hostile\nsummary: hostile case\nlevel: 1\n---\n\n```python setup\n"
        f"{context_setup(**world.names)}```\n\n```python\n{source}```\n\n```python check\nassert True\n```\n"
    )


@pytest.mark.parametrize("name,source,expected", CORPUS, ids=[c[0] for c in CORPUS])
def test_case_as_a_whole_snippet(stack, name, source, expected):
    server, world = stack
    with server.client() as http:
        response = http.put(
            f"/api/snippets/case-{name.replace('_', '-')}", headers=BEARER, content=snippet_for(source, world).encode()
        )
        body = response.json()
        assert response.status_code in (201, 422), body
        verdict = body["verdict"] or {"status": "error"}  # no verdict: refused before running (syntax)
        assert verdict["status"] in expected.statuses, body
        assert body["saved"] == (verdict["status"] == "passed")
        if not body["saved"]:
            assert body["problems"] and body["problems"][0]["message"]
        assert_contained(server, world, http)


@pytest.mark.parametrize("name,source,expected", ONE_LINERS, ids=[c[0] for c in ONE_LINERS])
def test_case_as_a_blank_answer(stack, name, source, expected):
    server, world = stack
    line = next(ln for ln in source.splitlines() if ln and not ln.startswith("#"))
    answer = line.split("= ", 1)[1]
    with server.client() as http:
        page = http.get("/s/hostile-answer")
        version = page.text.split('name="version" value="')[1].split('"')[0]
        response = http.post(
            "/s/hostile-answer", data={"version": version, "c0": answer}, headers={"accept": "application/json"}
        )
        result = response.json()["result"]
        assert response.status_code == 200 and result["blanks"][0]["state"] == "wrong"
        assert result["run"]["status"] != "passed" or "root:" not in result["run"]["stdout"]
        for text in expected.stdout_lacks:
            assert text not in result["run"]["stdout"]
        assert_contained(server, world, http)


def test_drill_pages_keep_answering_while_hostile_jobs_run(stack, tmp_path):
    server, world = stack
    hostile = [c for c in CORPUS if c[0] in ("infinite_loop", "fork_bomb", "creeping_allocation", "print_1gb")]
    stop = threading.Event()

    def attack():
        with server.client() as http:
            while not stop.is_set():
                for name, source, _ in hostile:
                    http.put(
                        f"/api/snippets/load-{name.replace('_', '-')}",
                        headers=BEARER,
                        content=snippet_for(source, world).encode(),
                    )

    attackers = [threading.Thread(target=attack) for _ in range(4)]
    for thread in attackers:
        thread.start()
    latencies = []
    try:
        with server.client() as http:
            end = time.monotonic() + 8
            seed = 0
            while time.monotonic() < end:
                seed += 1
                started = time.perf_counter()
                assert http.get(f"/s/mlm-flash-forward/drill?rate=20&seed={seed}").status_code == 200
                latencies.append((time.perf_counter() - started) * 1000)
    finally:
        stop.set()
        for thread in attackers:
            thread.join(60)
    figures = {
        "pages": len(latencies),
        "p50_ms": round(statistics.median(latencies), 1),
        "p99_ms": round(sorted(latencies)[int(len(latencies) * 0.99) - 1], 1),
        "max_ms": round(max(latencies), 1),
    }
    print("drill pages under hostile load:", figures)
    Path("test-artifacts").mkdir(exist_ok=True)
    Path("test-artifacts/hostile-load-latency.json").write_text(json.dumps(figures))
    assert figures["pages"] > 20  # pages kept coming back, every one a 200
    with server.client() as http:
        assert_contained(server, world, http)
