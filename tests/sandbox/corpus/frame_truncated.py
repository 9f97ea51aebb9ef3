# expect: crashed
# Half a frame, then the process ends before the rest: no report can be read.
import os

for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        os.write(fd, b"\x00\x00\x01\x00" + b'{"result": {"status": "pas')
    except OSError:
        pass
os._exit(0)
