"""The addresses this process serves HTTP on, read from its own listening sockets: uvicorn binds
them only after the app's start-up, and the app is never told its host and port."""

import asyncio
import os
import socket
import stat

WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1"}  # listening on every address: this host's own is one


def listening_urls() -> list[str]:
    """`http://host:port` of each TCP socket this process listens on, sorted."""
    urls = set()
    for fd in _open_fds():
        address = _socket_address(fd)
        if address:
            urls.add(_url(*address))
    return sorted(urls)


def _socket_address(fd: int) -> tuple[str, int] | None:
    """The address a listening TCP socket at `fd` is bound to, read through a copy of the fd."""
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return None
        copy = os.dup(fd)
    except OSError:
        return None  # closed meanwhile
    try:
        sock = socket.socket(fileno=copy)
    except OSError:
        os.close(copy)
        return None
    with sock:
        return _listening_address(sock)


async def first_listening_urls(wait_seconds: float = 10.0, every: float = 0.05) -> list[str]:
    """The listening URLs once there are any, or [] after `wait_seconds` (an in-process client)."""
    for _ in range(max(1, int(wait_seconds / every))):
        urls = listening_urls()
        if urls:
            return urls
        await asyncio.sleep(every)
    return []


def _open_fds() -> list[int]:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(folder)]
        except OSError:
            continue
    return []


def _listening_address(sock: socket.socket) -> tuple[str, int] | None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        return None
    try:
        if not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            return None
        host, port = sock.getsockname()[:2]
    except OSError:
        return None
    return host, port


def _url(host: str, port: int) -> str:
    host = WILDCARDS.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
