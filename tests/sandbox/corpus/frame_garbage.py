# expect: crashed
# Bytes that are not UTF-8 and not JSON, inside a well-formed length prefix.
import os
import struct

body = bytes(range(256)) * 4 + b"\xed\xa0\x80\xc0\xaf"
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, struct.pack(">I", len(body)) + body)
    except OSError:
        pass
