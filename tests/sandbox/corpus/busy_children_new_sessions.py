# expect: timeout
# Busy children in sessions of their own, each under the per-process CPU limit for a while:
# the job's CPU is counted over its whole tree.
import os
import time

for _ in range(6):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
time.sleep(30)
