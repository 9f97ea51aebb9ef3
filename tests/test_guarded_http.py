"""Slow and incomplete requests against a real uvicorn started as ./scripts/serve starts it, with an
honest learner submitting from another address meanwhile: half-sent headers (silent, or dripping a
byte at a time) are answered 408 and closed at the header deadline, a body that never finishes is
closed at the body deadline and writes nothing, and one address holds at most its cap of
connections while others are served."""

import concurrent.futures
import re
import socket
import time

import httpx
import pytest

from tests.servers import PROJECT_DIR, SERVE_FLAGS, slow_answer_server

pytestmark = pytest.mark.server

HEADER_SECONDS, BODY_SECONDS, CAP = 2.0, 2.0, 40


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with slow_answer_server(
        tmp_path_factory,
        "slow",
        CODECLOZE_REQUEST_HEADER_SECONDS=str(HEADER_SECONDS),
        CODECLOZE_REQUEST_BODY_SECONDS=str(BODY_SECONDS),
        CODECLOZE_CONNECTIONS_PER_ADDRESS=str(CAP),
    ) as url:
        yield url


def connect(url: str, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
    return sock


def until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """What the server sent before closing, and when it closed (from now); limit: give up after."""
    started, received = time.monotonic(), b""
    sock.settimeout(limit)
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return received, float("inf")
    finally:
        sock.close()
    return received, time.monotonic() - started


class Honest:
    """A learner at 127.0.0.1 with a history, submitting while the attack runs."""

    def __init__(self, url: str):
        self.http = httpx.Client(base_url=url, timeout=30, headers={"origin": url, "accept": "application/json"})
        page = self.http.get("/s/slow-answer", headers={"accept": "text/html"}).text
        self.version = re.search(r'name="version" value="([^"]+)"', page).group(1)
        assert self.submit()[0] == 200

    def submit(self) -> tuple[int, float]:
        started = time.perf_counter()
        response = self.http.post("/s/slow-answer", data={"version": self.version, "c0": "0"})
        return response.status_code, time.perf_counter() - started

    def verdicts(self, seconds: float) -> list[tuple[int, float]]:
        out, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            out.append(self.submit())
            time.sleep(0.1)
        return out

    def attempts(self) -> int:
        return self.http.get("/me/attempts.csv").text.strip().count("\n")  # rows under the header


def assert_served(results: list[tuple[int, float]]) -> None:
    statuses, seconds = [s for s, _ in results], sorted(t for _, t in results)
    assert statuses == [200] * len(results), statuses
    assert seconds[int(0.99 * (len(seconds) - 1))] < 1.0, seconds[-5:]


def test_serve_script_starts_uvicorn_as_the_tests_do():
    serve = (PROJECT_DIR / "scripts" / "serve").read_text()
    command = serve[serve.index("exec .venv/bin/uvicorn") :].replace("\\\n", " ").split()
    for flag in SERVE_FLAGS:
        assert flag in command, flag


def test_half_sent_headers_are_answered_408_and_closed_while_an_honest_learner_is_served(served):
    honest = Honest(served)
    silent = [connect(served, "127.0.0.2") for _ in range(CAP // 2)]
    partial = [connect(served, "127.0.0.3") for _ in range(CAP // 2)]
    for sock in partial:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    drip = connect(served, "127.0.0.4")  # a byte every 0.3 s: never idle, never done

    def dripping():
        try:
            for byte in b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"a" * 100:
                drip.sendall(bytes([byte]))
                time.sleep(0.3)
        except OSError:  # closed by the server, as it should be
            pass

    with concurrent.futures.ThreadPoolExecutor(len(silent) + len(partial) + 2) as pool:
        dripper = pool.submit(dripping)
        closings = [pool.submit(until_closed, sock, 10 * HEADER_SECONDS) for sock in silent + partial + [drip]]
        results = honest.verdicts(HEADER_SECONDS + 1)
        dripper.result()
        ends = [future.result() for future in closings]
    assert_served(results)
    for received, seconds in ends:
        assert HEADER_SECONDS - 0.5 < seconds < HEADER_SECONDS + 2, seconds
        assert received.startswith(b"HTTP/1.1 408 "), received
        assert "请求的头部没有及时发完".encode() in received


def test_a_body_that_never_finishes_is_closed_and_writes_nothing(served):
    honest = Honest(served)
    before = honest.attempts()
    sock = connect(served, "127.0.0.5")
    cookies = "; ".join(f"{name}={value}" for name, value in honest.http.cookies.items())
    body = f"version={honest.version}&c0=0".encode()
    sock.sendall(
        b"POST /s/slow-answer HTTP/1.1\r\nHost: x\r\nOrigin: " + served.encode() + b"\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nCookie: " + cookies.encode() + b"\r\n"
        b"Content-Length: " + str(len(body) + 100).encode() + b"\r\n\r\n" + body
    )
    received, seconds = until_closed(sock, 10 * BODY_SECONDS)
    assert BODY_SECONDS - 0.5 < seconds < BODY_SECONDS + 2, seconds
    assert not received.startswith(b"HTTP/1.1 200"), received
    assert honest.attempts() == before
    assert_served(honest.verdicts(1.0))


def test_one_address_holds_at_most_its_cap_and_others_are_served(served):
    honest = Honest(served)
    held = [connect(served, "127.0.0.6") for _ in range(CAP)]
    time.sleep(0.2)  # the server has counted them
    refused = connect(served, "127.0.0.6")
    received, seconds = until_closed(refused, 5)
    assert received.startswith(b"HTTP/1.1 429 "), received
    assert seconds < 1, seconds
    assert_served(honest.verdicts(1.0))  # another address: served as usual
    for sock in held:
        sock.close()
    time.sleep(0.2)
    again = connect(served, "127.0.0.6")  # the address's connections closed: it may connect again
    again.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert until_closed(again, 5)[0].startswith(b"HTTP/1.1 200 "), "the cap was not given back"
