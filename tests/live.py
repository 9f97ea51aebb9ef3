"""A real uvicorn server on a real port, in a thread of the test process, so tests can speak
HTTP to it and still look inside (e.g. at the sandbox's processes)."""

import asyncio
import threading
import time

import httpx
import uvicorn

from tests.servers import free_port


class ThreadedServer:
    def __init__(self, app):
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.server.serve(),), daemon=True)

    def __enter__(self) -> "ThreadedServer":
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def call(self, coro, timeout: float = 30):
        """Run a coroutine on the server's own loop (where the sandbox client lives)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def client(self, **kwargs) -> httpx.Client:
        """A client posting as this site's pages do (with their origin)."""
        headers = {"origin": self.url, **kwargs.pop("headers", {})}
        return httpx.Client(base_url=self.url, timeout=60, headers=headers, **kwargs)
