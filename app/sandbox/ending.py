"""Whether a job's whole tree is past running any code of its own, before anything is reaped.

A verdict may go out as soon as that holds, rather than after the zygote has reaped the job
process: tearing down a forked torch process's memory takes most of what a verdict costs
beyond the check itself, and a learner need not wait for it. The slot is still reused only
after the reap. How the kernel makes this hold is in README.md ("The verdict before the reap").
"""

import os
import signal

PF_EXITING = 0x00000004  # include/linux/sched.h: set on entering do_exit, never cleared
_FLAGS = 6  # /proc/PID/stat, counting from the state (field 3) after the command's ")"


def exiting(tid: int) -> bool:
    """True once thread `tid` is in the kernel's exit path (or gone): it will not return to
    user mode again. A number reused meanwhile by another live thread reads as not exiting,
    which only makes the caller wait for the reap."""
    try:
        with open(f"/proc/{tid}/stat", "rb") as f:
            data = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return True
    fields = data[data.rindex(b")") + 2 :].split()
    return fields[0] in (b"Z", b"X") or bool(int(fields[_FLAGS]) & PF_EXITING)


def all_exiting(read_tids) -> bool:
    """`read_tids()`: the threads in the job's cgroup now. True when every one is exiting and
    none appeared meanwhile: a fork that raced the kill has linked its child into the cgroup
    before its parent could begin to exit, so the second read would show that child."""
    before = set(read_tids())
    return all(exiting(t) for t in before) and set(read_tids()) <= before


def kill_processes(pids, member) -> None:
    """SIGKILL to each of `pids` that `member(pid)` still holds once its pidfd is open: the
    pidfd pins the process, so a number the host reused meanwhile is never signalled."""
    for pid in pids:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            continue  # gone already
        try:
            if member(pid):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(pidfd)
