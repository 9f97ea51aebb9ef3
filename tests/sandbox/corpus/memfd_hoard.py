# expect: memory
# Memory files are mapped by nobody, so no process's counters show them: 10 processes filling
# 48 of them each (1 MiB, the file-size limit; 48 stays below the open-file limit, so only the
# memory limit can stop them) hold about 480 MiB of shmem pages.
import os
import time

for _ in range(9):
    if os.fork() == 0:
        break
files = []
for _ in range(48):
    fd = os.memfd_create("hoard")
    os.write(fd, b"x" * (1 << 20))
    files.append(fd)
time.sleep(5)
