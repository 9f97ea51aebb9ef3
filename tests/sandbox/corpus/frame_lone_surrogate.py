# expect: failed
# A report the learner may fake for themselves, carrying text that cannot be encoded as UTF-8.
import os
import struct

body = '{"result": {"status": "failed", "message": "bad \\ud800 text \\udfff", "part": "\\udc00"}}'.encode()
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, struct.pack(">I", len(body)) + body)
    except OSError:
        pass
import time
time.sleep(1)
