"""Length-prefixed JSON frames: 4-byte big-endian length, then UTF-8 JSON."""
import asyncio
import json
import os
import struct

MAX_FRAME = 8 << 20
_HEADER = struct.Struct(">I")


class FrameError(Exception):
    pass


def encode(obj) -> bytes:
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(body) > MAX_FRAME:
        raise FrameError(f"frame of {len(body)} bytes is too large")
    return _HEADER.pack(len(body)) + body


def _decode(body: bytes):
    try:
        return json.loads(body.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise FrameError(f"bad frame: {exc}") from None


class FrameBuffer:
    """Collects bytes from a stream; yields whole frames; refuses frames above `limit`."""

    def __init__(self, limit: int = MAX_FRAME):
        self.limit = limit
        self._data = bytearray()

    def feed(self, data: bytes) -> list:
        self._data += data
        frames = []
        while len(self._data) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._data)
            if size > self.limit:
                raise FrameError(f"frame of {size} bytes is too large")
            if len(self._data) < _HEADER.size + size:
                break
            frames.append(_decode(bytes(self._data[_HEADER.size:_HEADER.size + size])))
            del self._data[:_HEADER.size + size]
        return frames


def write_frame(fd: int, obj) -> None:
    """Blocking write of one frame to a file descriptor."""
    view = memoryview(encode(obj))
    while view:
        view = view[os.write(fd, view):]


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


async def read_frame(reader: asyncio.StreamReader):
    header = await reader.readexactly(_HEADER.size)
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME:
        raise FrameError(f"frame of {size} bytes is too large")
    return _decode(await reader.readexactly(size))
