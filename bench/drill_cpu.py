"""CPU time per drill request, the ASGI app called directly (no HTTP, no load generator): a
new-mask page and an htmx submission for each masking unit at 20 %, inputs as in web_app.

    python bench/drill_cpu.py [--requests 1000]
"""

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.web_app import BODIES, LEARNER, SNIPPET, UNITS, app, page_url  # noqa: E402

HEADERS = [
    (b"host", b"127.0.0.1"),
    (b"origin", b"http://127.0.0.1"),  # the site's own page posts it
    (b"hx-request", b"true"),
    (b"content-type", b"application/x-www-form-urlencoded"),
    (b"cookie", f"cc_learner={LEARNER}".encode()),
]


async def call(method: str, url: str, body: bytes = b"", *, target=app, headers=HEADERS, expect=200) -> dict:
    """The response's headers, once its status is `expect`."""
    path, _, query = url.partition("?")
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "scheme": "http",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 1),
        "app": target,
        "headers": headers,
    }
    status, sent = [], {}

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])
            sent.update((k.decode(), v.decode()) for k, v in message["headers"])

    await target(scope, receive, send)
    assert status == [expect], status
    return sent


async def cpu_ms(make, n: int) -> float:
    for i in range(n // 4):  # warm the caches a running server has
        await make(i)
    start = time.process_time()
    for i in range(n):
        await make(10**6 + i)
    return (time.process_time() - start) * 1000 / n


async def main(n: int) -> None:
    async with app.router.lifespan_context(app):
        print("| unit | drill page, new mask (ms CPU) | htmx submission (ms CPU) |\n|---|---|---|")
        for unit in UNITS:
            page = await cpu_ms(lambda i: call("GET", page_url(unit, i)), n)
            post = await cpu_ms(
                lambda i: call("POST", f"/s/{SNIPPET}/drill", BODIES[unit][i % len(BODIES[unit])].encode()), n
            )
            print(f"| {unit} | {page:.3f} | {post:.3f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    asyncio.run(main(parser.parse_args().requests))
