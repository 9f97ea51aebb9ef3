"""A real uvicorn server in a subprocess, spoken to over HTTP."""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest

from app.settings import PROJECT_DIR

pytestmark = pytest.mark.server


def fetch(url: str, data: dict | None = None, headers: dict | None = None):
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    if body is not None:  # a page of this site posts it
        parts = urllib.parse.urlsplit(url)
        headers = {"Origin": f"{parts.scheme}://{parts.netloc}", **(headers or {})}
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode(), response.url
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(), url


def test_serves_the_home_page_and_static_assets(live_server):
    status, html, _ = fetch(live_server + "/")
    assert status == 200 and "在线 Softmax (m/l 更新)" in html
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert fetch(live_server + asset)[0] == 200, asset
    assert fetch(live_server + "/favicon.ico")[0] == 200


def test_a_drill_round_trip(live_server):
    status, html, url = fetch(live_server + "/s/mlm-flash-forward/drill?rate=20")
    assert status == 200 and "seed=" in url
    seed = int(re.search(r"seed=(\d+)", url).group(1))
    version = re.search(r'name="version" value="(\w+)"', html).group(1)
    names = re.findall(r'name="(s\d+)"', html)
    status, body, _ = fetch(
        live_server + "/s/mlm-flash-forward/drill",
        {"version": version, "rate": "20", "seed": str(seed), **{n: "?" for n in names}},
        {"accept": "application/json"},
    )
    result = json.loads(body)["result"]
    assert status == 200 and result["total"] == len(names) and result["correct"] == 0


def test_errors_over_http_are_pages_not_tracebacks(live_server):
    status, html, _ = fetch(live_server + "/s/mlm-flash-forward/drill?rate=5&seed=1")
    assert status == 422 and "挖空率必须在" in html and "Traceback" not in html


def test_the_generated_teacher_login_is_logged_as_a_full_url_that_signs_in(tmp_path):
    import http.cookiejar
    import threading

    from tests.servers import start_server

    proc, url = start_server(
        tmp_path / "data", subprocess.PIPE, CODECLOZE_TEACHER_TOKEN=None, CODECLOZE_LOG_LEVEL="WARNING"
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.decode() for line in proc.stdout), daemon=True)
    reader.start()
    try:
        logged = None
        for _ in range(150):  # the line comes once the socket is bound
            logged = next((line for line in lines if "teacher login:" in line), None)
            if logged:
                break
            reader.join(0.1)
        assert logged is not None, lines
        login = re.search(r"teacher login: (\S+?token=[\w-]+)", logged).group(1)
        assert login.startswith(url + "/teach/login?token=")  # host and port as the server listens
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(login, timeout=30) as response:
            assert response.url == url + "/teach" and "教师后台" in response.read().decode()
    finally:
        proc.terminate()
        proc.wait(10)


LISTENING = """
import os
import socket

from app.observability.addresses import listening_urls

before = len(os.listdir("/proc/self/fd"))
with socket.socket() as listener, socket.socket(socket.AF_INET6) as wildcard, socket.socket() as idle:
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    wildcard.bind(("::", 0))
    wildcard.listen()
    idle.bind(("127.0.0.1", 0))  # bound, not listening: no URL
    urls = [listening_urls() for _ in range(50)][-1]
    assert f"http://127.0.0.1:{listener.getsockname()[1]}" in urls
    assert f"http://[::1]:{wildcard.getsockname()[1]}" in urls
    assert not any(url.endswith(f":{idle.getsockname()[1]}") for url in urls)
    assert len(os.listdir("/proc/self/fd")) == before + 3
"""


def test_listening_urls_are_read_from_this_process_sockets_without_leaking_any():
    # In an interpreter of its own: the test worker's other threads open and close descriptors
    # (databases, servers of other tests) while the count runs.
    done = subprocess.run([sys.executable, "-c", LISTENING], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_teacher_login_line_is_news_not_a_warning(tmp_path):
    from tests.servers import start_server

    proc, _url = start_server(
        tmp_path / "data", subprocess.PIPE, CODECLOZE_TEACHER_TOKEN=None, CODECLOZE_LOG_LEVEL="INFO"
    )
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line.decode())
            if "teacher login:" in lines[-1]:
                break
        assert '"level": "INFO"' in lines[-1] and "teacher login:" in lines[-1], lines[-5:]
    finally:
        proc.terminate()
        proc.wait(10)
