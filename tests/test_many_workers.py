"""Two uvicorn processes (two hosts, as far as the app can tell: separate data dirs) on one real
PostgreSQL, and what several workers need to start at all."""

import subprocess
import sys
import time
from datetime import UTC, datetime

import httpx
import pytest

from app.settings import PROJECT_DIR
from tests.servers import start_server
from tests.site_client import own_site
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.server
SECRET = "one-secret-for-every-worker"
JSON = {"accept": "application/json"}


@pytest.fixture
def two_hosts(tmp_path, postgres):
    url = postgres.new_database()
    env = {
        "DATABASE_URL": url,
        "CODECLOZE_SECRET_KEY": SECRET,
        "CODECLOZE_TEACHER_TOKEN": TOKEN,
        "CODECLOZE_EXECUTION": "false",
    }
    a, url_a = start_server(tmp_path / "host-a", **env)
    b, url_b = start_server(tmp_path / "host-b", **env)
    yield url_a, url_b
    for proc in (a, b):
        proc.terminate()
        proc.wait(10)


def submit(http: httpx.Client, base: str, snippet_id: str, seed: int) -> dict:
    page = http.get(f"{base}/s/{snippet_id}/drill?rate=20&seed={seed}", headers=JSON).json()
    answers = {blank["key"]: "wrong" for blank in page["blanks"]}
    response = http.post(
        f"{base}/s/{snippet_id}/drill",
        headers=own_site(base, JSON),
        json={"version": page["version"], "rate": 20, "seed": seed, "answers": answers},
    )
    assert response.status_code == 200, response.text
    return response.json()


def within_a_second(check) -> bool:
    deadline = time.monotonic() + 1.0
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_learner_a_teacher_and_a_snippet_move_freely_between_two_hosts(two_hosts):
    a, b = two_hosts
    # One browser (cookies go to both hosts), in a zone where today has hours left: two wrong drills
    # fall due two hours later, which near midnight UTC would be tomorrow.
    zone = "Etc/GMT+12" if datetime.now(UTC).hour >= 18 else "UTC"
    with httpx.Client(timeout=20, cookies={"cc_tz": zone}) as learner:
        submit(learner, a, "mlm-online-softmax", 1)
        submit(learner, b, "mlm-online-softmax", 2)
        me_a, me_b = learner.get(f"{a}/me", headers=JSON).json(), learner.get(f"{b}/me", headers=JSON).json()
        link_a, link_b = me_a.pop("link"), me_b.pop("link")  # the same device link, on each host's address
        assert link_a.split("/me/continue/")[1] == link_b.split("/me/continue/")[1]
        assert me_a == me_b  # one id, one history, one due list, whichever host answers
        assert me_a["snippets"][0]["attempts"] == 2 and len(me_a["due"]) == 1
    with httpx.Client(timeout=20) as teacher:
        assert teacher.get(f"{a}/teach/login?token={TOKEN}").status_code == 303  # signed in, sent on
        assert teacher.get(f"{b}/teach", headers=JSON).status_code == 200  # the session works on both
        bearer = {"authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"}
        assert (
            teacher.put(f"{a}/api/snippets/square", content=snippet_text("First").encode(), headers=bearer).status_code
            == 201
        )
        teacher.post(f"{a}/api/snippets/square/publish", headers=bearer)
        assert within_a_second(lambda: teacher.get(f"{b}/s/square").status_code == 200)
        drill = submit(teacher, b, "square", 3)  # uploaded through one, drilled through the other
        assert drill["result"]["saved"] is True
        teacher.put(f"{b}/api/snippets/square", content=snippet_text("Second").encode(), headers=bearer)
        assert within_a_second(lambda: "Second" in teacher.get(f"{a}/s/square").text)


def test_several_workers_refuse_to_start_without_a_shared_secret(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--workers", "2", "--port", "0"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "CODECLOZE_DATA_DIR": str(tmp_path / "d"), "CODECLOZE_EXECUTION": "false"},
    )
    output = done.stdout + done.stderr
    assert "several workers are starting without CODECLOZE_SECRET_KEY" in output
    # Once per worker, not restarted forever (the run ends within its timeout); on a loaded machine
    # the supervisor may restart a worker once before the worker's stop request reaches it.
    assert output.count("several workers are starting") <= 4
    assert "Traceback" not in output.split("several workers")[0][-400:]
