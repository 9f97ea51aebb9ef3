# expect: crashed
# A frame header announcing 4 GiB, then a trickle of bytes that never completes it.
import os
import time

for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, b"\xff\xff\xff\xf0" + b"{" * 1000)
    except OSError:
        pass
time.sleep(5)
