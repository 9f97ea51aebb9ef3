# expect: memory
# Shared anonymous memory is not "anonymous" in per-process counters: 8 processes holding
# 200 MiB of it each are far above the job's limit together, though each stays under its own.
import mmap
import os
import time

for _ in range(7):
    if os.fork() == 0:
        break
hoard = mmap.mmap(-1, 200 << 20, flags=mmap.MAP_SHARED)
for offset in range(0, len(hoard), 4096):
    hoard[offset] = 1
time.sleep(5)
