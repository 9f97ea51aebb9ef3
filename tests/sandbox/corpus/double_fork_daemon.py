# expect: passed
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(120)  # the daemon, meant to outlive the job
    os._exit(0)
time.sleep(0.2)
