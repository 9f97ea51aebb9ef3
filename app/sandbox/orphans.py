"""Ending what a job left behind when it had no pid namespace of its own.

With a pid namespace, the job process is its init and the kernel kills everything in the
namespace when it exits. Without one, the zygote is a child subreaper: whatever the job
started is re-parented to the zygote once its own parent is gone, even after setsid and a
double fork, and is killed here before the job counts as finished.
"""

import os
import signal
import time

ROUNDS = 500  # each round kills one more generation of a process tree that keeps forking


def _live_children(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(name))
    return found


def end_job_leftovers(pgid: int, known_children: set[int]) -> bool:
    """Kills the job's process group and every adopted process; True when none is left."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    for _ in range(ROUNDS):
        strays = [pid for pid in _live_children(os.getpid()) if pid not in known_children]
        if not strays:
            return True
        for pid in strays:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)
        for pid in strays:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
    return False
