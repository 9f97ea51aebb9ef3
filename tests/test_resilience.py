"""A full queue answers "busy, retry" at once; a dead fork server is replaced without the learner noticing."""

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from app.main import create_app
from app.settings import Settings
from tests.helpers import drill_form
from tests.live import ThreadedServer

pytestmark = pytest.mark.server

JSON = {"accept": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("d"), use_cdn=False, cpu_seconds=2, wall_seconds=3, workers=1, queue=0
    )
    with ThreadedServer(create_app(settings)) as live:
        yield live


def endless_exercise(app) -> dict:
    snippet = app.state.library.get("ex1-attention-memory")
    from tests.helpers import right_answers

    answers = right_answers(app, "ex1-attention-memory")
    answers["c0"] = "any(iter(int, 1))"
    return {"version": snippet.version, **answers}


def test_a_full_queue_answers_busy_at_once(server):
    slow = threading.Thread(
        target=lambda: server.client().post("/s/ex1-attention-memory", data=endless_exercise(server.app))
    )
    slow.start()
    time.sleep(0.5)  # the only worker is now busy
    with server.client() as http:
        started = time.monotonic()
        form = drill_form(server.app, "mlm-online-softmax", 20, 1)
        response = http.post("/s/mlm-online-softmax/drill", data=form)
        assert time.monotonic() - started < 1.0
        assert response.status_code == 503 and response.headers["retry-after"] == "2"
        assert "服务器正忙" in response.text
        htmx = http.post("/s/mlm-online-softmax/drill", data=form, headers={"HX-Request": "true"})
        assert htmx.status_code == 503 and htmx.headers["HX-Retarget"] == "#flash"
    slow.join(30)
    with server.client() as http:
        response = http.post("/s/mlm-online-softmax/drill", data=form, headers=JSON)
        assert response.json()["result"]["run"]["status"] == "passed"


def test_a_killed_fork_server_is_replaced_and_the_job_retried(server):
    status = server.call(server.app.state.sandbox.status())
    os.kill(status["server_pid"], signal.SIGKILL)
    form = drill_form(server.app, "mlm-online-softmax", 20, 2)
    with server.client() as http:
        response = http.post("/s/mlm-online-softmax/drill", data=form, headers=JSON)
    assert response.json()["result"]["run"]["status"] == "passed"
    assert server.call(server.app.state.sandbox.status())["server_pid"] != status["server_pid"]


def test_execution_can_be_turned_off(client):
    form = drill_form(client.app, "mlm-online-softmax", 20, 3)
    data = client.post("/s/mlm-online-softmax/drill", data=form, headers=JSON).json()
    assert data["result"]["run"] is None and data["result"]["correct"] == data["result"]["total"]
    assert client.get("/healthz").json()["execution"] == "off"


def test_the_zygote_gives_back_the_library_pages_only_its_start_up_used(server):
    """pageout.py: torch's start-up touches ~80 MiB of library code the jobs never use again."""
    status = server.call(server.app.state.sandbox.status())
    zygote = next(p for p in status["zygote_pids"] if "libtorch" in Path(f"/proc/{p}/maps").read_text())
    clean = [
        int(line.split()[1]) / 1024
        for line in Path(f"/proc/{zygote}/smaps_rollup").read_text().splitlines()
        if line.startswith("Private_Clean:")
    ]
    assert clean and clean[0] < 20, clean  # 77 MiB when the pages stay mapped
    form = drill_form(server.app, "ex5-flash-backward", 20, 4)
    with server.client() as http:
        response = http.post("/s/ex5-flash-backward/drill", data=form, headers=JSON)
    assert response.json()["result"]["run"]["status"] == "passed"  # a job faults back what it needs
