"""uvicorn's HTTP protocol with the deadlines and the cap it lacks: a connection that has not sent a
whole request's headers within `request_header_seconds` (from its opening, or from the first byte
of its next request) or its body within `request_body_seconds` after them is answered 408 or
closed, and one address holds at most `connections_per_address` connections at once.

uvicorn arms a timer only on an idle keep-alive connection, so half-sent requests (slowloris)
would stay open for good, each holding a file descriptor and buffers. `./scripts/serve` starts
uvicorn with `--http app.web.guarded_http:GuardedHttp`. Peers listed in CODECLOZE_TRUSTED_PROXIES
are not capped: behind a proxy every connection comes from it, and the proxy limits its clients.
"""

import asyncio
import collections
import functools
import ipaddress
from dataclasses import dataclass

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.i18n import _, set_language
from app.settings import Settings, proxy_networks


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a string marked, translated later)
    return message


# Connections open per peer address, in this process (each uvicorn worker counts its own).
_open: collections.Counter[str] = collections.Counter()


@dataclass(frozen=True)
class Limits:
    header_seconds: float
    body_seconds: float
    per_address: int
    proxies: tuple  # trusted proxy networks: not capped
    language: str  # of the few words a refused connection gets


@functools.cache
def limits() -> Limits:
    """Read once from the same CODECLOZE_* variables as the app's settings."""
    settings = Settings()
    return Limits(
        settings.request_header_seconds,
        settings.request_body_seconds,
        settings.connections_per_address,
        proxy_networks(settings.trusted_proxies),
        settings.language,
    )


def _capped(address: str | None, networks: tuple) -> bool:
    if address is None:
        return False  # a Unix socket: the host's own processes
    try:
        return not any(ipaddress.ip_address(address) in network for network in networks)
    except ValueError:
        return True


def _reply(status: bytes, message: str) -> bytes:
    """A whole response, then the connection closes; in the host's language (no request says another)."""
    set_language(limits().language)  # this callback's context only
    body = _(message).encode()
    head = f"content-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    return b"HTTP/1.1 " + status + b"\r\n" + head.encode() + body


class GuardedHttp(HttpToolsProtocol):
    _address: str | None = None
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if _capped(address, limits().proxies):
            if _open[address] >= limits().per_address:
                transport.write(_reply(b"429 Too Many Requests", N_("这个地址打开的连接太多，请稍后再试。")))
                transport.close()
                return
            self._address = address
            _open[address] += 1
        self._arm(limits().header_seconds, self._headers_late)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            _open[self._address] -= 1
            if not _open[self._address]:
                del _open[self._address]
            self._address = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(limits().header_seconds, self._headers_late)  # the next request on a kept-alive connection

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(limits().body_seconds, self._body_late)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def _arm(self, seconds: float, late) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_late(self) -> None:
        """No response is under way for a request whose headers never came: say why, and close."""
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.write(_reply(b"408 Request Timeout", N_("请求的头部没有及时发完，连接已关闭。")))
            self.transport.close()

    def _body_late(self) -> None:
        """The app is reading the body: closing tells it the client left, so nothing is written."""
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
