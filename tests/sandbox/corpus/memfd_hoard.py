# expect: memory
# Memory files are mapped by nobody, so no process's counters show them: 8 processes filling
# 60 of them each (1 MiB, the file-size limit) hold about 480 MiB of shmem pages.
import os
import time

for _ in range(7):
    if os.fork() == 0:
        break
files = []
for _ in range(60):
    fd = os.memfd_create("hoard")
    os.write(fd, b"x" * (1 << 20))
    files.append(fd)
time.sleep(5)
