"""No channel between concurrent jobs, through the real upload path of a uvicorn server: a
snippet whose reference code leaves marks everywhere, and one uploaded meanwhile that looks."""

import threading
import time

import pytest

from app.main import create_app
from app.settings import Settings
from tests.live import ThreadedServer
from tests.sandbox.channels import NOTHING_LEARNED, RECEIVER, SENDER
from tests.servers import copy_snippets

pytestmark = pytest.mark.server

TOKEN = "channels-test-token"
BEARER = {"authorization": f"Bearer {TOKEN}"}


def snippet(code: str, setup: str = "", check: str = "assert True") -> bytes:
    return (
        f"---\ntitle: channel\nsummary: channel test\nlevel: 1\n---\n\n```python setup\n{setup}\n```\n\n"
        f"```python\n{code}\n```\n\n```python check\n{check}\n```\n"
    ).encode()


def test_an_upload_learns_nothing_from_one_running_beside_it(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "data",
        snippets_dir=copy_snippets(tmp_path),
        use_cdn=False,
        teacher_token=TOKEN,
        cpu_seconds=2,
        wall_seconds=4,
        memory_mb=256,
        workers=2,
    )
    with ThreadedServer(create_app(settings)) as server:
        sent = {}

        def send():
            with server.client() as http:
                sent["response"] = http.put(
                    "/api/snippets/channel-sender", headers=BEARER, content=snippet(SENDER, setup="SECONDS = 2")
                )

        sender = threading.Thread(target=send)
        sender.start()
        time.sleep(0.8)
        with server.client() as http:
            received = http.put(
                "/api/snippets/channel-receiver", headers=BEARER, content=snippet(RECEIVER, check=NOTHING_LEARNED)
            ).json()
        sender.join(30)
    assert sent["response"].json()["verdict"]["status"] == "passed", sent["response"].text
    assert received["verdict"]["status"] == "passed", received
