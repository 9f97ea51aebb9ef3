"""Locking a freshly forked job process down, step by step, before it sees any learner code.

`plan` says which steps to take (decided from what the start-up probe measured). In strict
mode a failing step aborts the job; the probe runs non-strict and records what worked.
"""

import os
import resource
import signal

from . import linux, mounts

_RLIMIT_BACKSTOP_SECONDS = 1  # the exact CPU limit is an itimer; this kill is the backstop


def close_other_fds(keep: set[int]) -> None:
    """Nothing inherited survives: listening sockets, client connections, databases."""
    low = 0
    for fd in sorted(keep) + [1 << 20]:
        os.closerange(low, fd)
        low = fd + 1


def _current_address_space() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def set_rlimits(limits: dict) -> None:
    cpu = int(limits["cpu_seconds"] + 0.999) + _RLIMIT_BACKSTOP_SECONDS
    address_space = _current_address_space() + int(limits["memory_bytes"])
    for name, value in (
        ("RLIMIT_CPU", cpu),
        ("RLIMIT_AS", address_space),
        ("RLIMIT_NPROC", limits["max_processes"]),
        ("RLIMIT_NOFILE", limits["max_open_files"]),
        ("RLIMIT_FSIZE", limits["max_file_bytes"]),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_MEMLOCK", 0),
        ("RLIMIT_MSGQUEUE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    # Past the file-size limit a write fails with EFBIG instead of killing the job.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _switch_uid(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # leaving uid 0 also clears the effective capabilities


def confine(plan: dict, limits: dict, seccomp_filter, strict: bool = True) -> dict[str, bool]:
    done: dict[str, bool] = {}

    def step(name: str, action) -> bool:
        if not plan.get(name):
            done[name] = False
            return False
        try:
            action()
            done[name] = True
        except Exception:  # noqa: BLE001 - the probe records any failure as "not available"
            if strict:
                raise
            done[name] = False
        return done[name]

    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setsid()
    shared = plan.get("shared_namespaces")  # inherited from the zygote, else a job's own
    step("net_namespace", lambda: shared or linux.unshare(linux.CLONE_NEWNET))
    step("ipc_namespace", lambda: shared or linux.unshare(linux.CLONE_NEWIPC | linux.CLONE_NEWUTS))
    if step("mount_namespace", lambda: linux.unshare(linux.CLONE_NEWNS)):
        step(
            "private_view",
            lambda: mounts.enter_private_view(
                plan["uid"] if plan.get("uid") is not None else os.getuid(),
                limits["work_dir_bytes"],
                limits["work_dir_files"],
                own_proc=os.getpid() == 1,
                keep=plan.get("tmp_binds", ()),
            ),
        )
    else:
        done["private_view"] = False
    step("rlimits", lambda: set_rlimits(limits))
    step("bounding_set", linux.drop_bounding_set)
    step("unprivileged_uid", lambda: _switch_uid(plan["uid"]))
    step("capabilities", linux.clear_capabilities)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # a uid change resets it
    step("no_new_privs", lambda: linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1))
    step("seccomp", lambda: seccomp_filter.load())
    return done
