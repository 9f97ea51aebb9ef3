# expect: memory|error|timeout
import os
import time

# Each process stays under the per-process cap; together they are far above it.
for _ in range(8):
    if os.fork() == 0:
        break
hoard = bytearray(200 << 20)  # 200 MiB, every page touched
time.sleep(5)
