"""Length-prefixed JSON frames: 4-byte big-endian length, then UTF-8 JSON.

Every byte may come from a hostile job: sizes and nesting are bounded, and any way a frame
can fail to decode is a FrameError (never RecursionError, MemoryError or a crash).
"""

import json
import os
import re
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the fork server and job processes read frames blocking, without asyncio
    import asyncio

MAX_FRAME = 8 << 20
MAX_DEPTH = 16  # frames are flat objects; deeper nesting is refused before it is decoded
_HEADER = struct.Struct(">I")


class FrameError(Exception):
    pass


def encode(obj) -> bytes:
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(body) > MAX_FRAME:
        raise FrameError(f"frame of {len(body)} bytes is too large")
    return _HEADER.pack(len(body)) + body


_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _too_deep(body: bytes) -> bool:
    """Strings dropped, only brackets kept, innermost pairs removed MAX_DEPTH times: anything
    left is deeper than that (or unbalanced, which the decoder would refuse anyway)."""
    brackets = _STRINGS.sub(b"", body).translate(None, _NOT_BRACKETS)
    for _ in range(MAX_DEPTH):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return bool(brackets)


def _decode(body: bytes):
    if _too_deep(body):
        raise FrameError("frame nested too deeply")
    try:
        return json.loads(body.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, MemoryError) as exc:
        raise FrameError(f"bad frame: {type(exc).__name__}") from None


class FrameBuffer:
    """Collects bytes from a stream; yields whole frames; refuses frames above `limit`."""

    def __init__(self, limit: int = MAX_FRAME):
        self.limit = limit
        self._data = bytearray()

    @property
    def pending(self) -> bool:
        """Bytes of an unfinished frame are waiting."""
        return bool(self._data)

    def feed(self, data: bytes) -> list:
        self._data += data
        frames = []
        while len(self._data) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._data)
            if size > self.limit:
                raise FrameError(f"frame of {size} bytes is too large")
            if len(self._data) < _HEADER.size + size:
                break
            frames.append(_decode(bytes(self._data[_HEADER.size : _HEADER.size + size])))
            del self._data[: _HEADER.size + size]
        return frames


def write_frame(fd: int, obj) -> None:
    """Blocking write of one frame to a file descriptor."""
    view = memoryview(encode(obj))
    while view:
        view = view[os.write(fd, view) :]


def read_frame_blocking(fd: int, limit: int = MAX_FRAME):
    """Blocking read of exactly one frame; None at end of file."""
    buffer = FrameBuffer(limit)
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        frames = buffer.feed(chunk)
        if frames:
            return frames[0]


async def read_frame(reader: "asyncio.StreamReader"):
    header = await reader.readexactly(_HEADER.size)
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME:
        raise FrameError(f"frame of {size} bytes is too large")
    return _decode(await reader.readexactly(size))
