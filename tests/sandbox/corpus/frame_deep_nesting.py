# expect: crashed
# A report nested far deeper than any decoder's recursion limit, on every pipe the job holds.
import os
import struct

body = b"[" * 200_000 + b"]" * 200_000
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, struct.pack(">I", len(body)) + body)
    except OSError:
        pass
