"""The seccomp filter a job runs under: no sockets, no new namespaces, no kernel-surface extras.

Everything not listed is allowed; the rest of the isolation comes from namespaces, the
unprivileged uid and rlimits. The filters are built once in the zygote and loaded per job.

Without a pid namespace a job can name any process on the host, and without a uid of its
own it may signal the web app and everything else its user runs (a `kill -9 -1` would end
them all). For such jobs the filter also refuses to act on any process but the job's own:
kill only with pid 0 (its own process group), no other signalling calls, and the calls that
take a pid only with pid 0 (self). Comparisons are on the full 64-bit register, so a pid
smuggled in the upper half is refused too.
"""

import errno

from . import linux

try:
    import pyseccomp
except (ImportError, RuntimeError):  # missing package or missing libseccomp2
    pyseccomp = None

DENIED = (
    # networking of any kind, including unix sockets to local services; socketpair too, since
    # jobs share one empty network namespace, which lists every unix socket in /proc/net/unix
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    # channels between concurrent jobs: SysV and POSIX IPC (jobs share one IPC namespace),
    # locks and change notifications on the read-only files every job sees
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    "flock",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    # leaving or reshaping the sandbox
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "mount_setattr",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    # reaching into other processes
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    # large kernel attack surface a learner's code never needs
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "quotactl",
)
_NS_FLAGS = (
    linux.CLONE_NEWNS,
    linux.CLONE_NEWUTS,
    linux.CLONE_NEWIPC,
    linux.CLONE_NEWUSER,
    linux.CLONE_NEWPID,
    linux.CLONE_NEWNET,
    0x02000000,
    0x00000080,
)  # NEWCGROUP, NEWTIME


# fcntl commands that lock, lease or watch a file: F_GETLK, F_SETLK, F_SETLKW, their OFD
# forms, F_SETLEASE, F_GETLEASE, F_NOTIFY (a lock test on a shared file is a one-bit channel)
_FCNTL_CHANNELS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)

# (syscall, index of the pid argument or None for "always refused")
_OTHER_PROCESSES = (
    ("kill", 0),
    ("prlimit64", 0),
    ("sched_setaffinity", 0),
    ("sched_setparam", 0),
    ("sched_setscheduler", 0),
    ("setpriority", 1),
    ("ioprio_set", 1),
    ("migrate_pages", 0),
    ("move_pages", 0),
    ("get_robust_list", 0),
    ("tkill", None),
    ("tgkill", None),
    ("rt_sigqueueinfo", None),
    ("rt_tgsigqueueinfo", None),
    ("pidfd_open", None),
    ("pidfd_send_signal", None),
)


def _add(flt, action, name: str, *args) -> None:
    try:
        flt.add_rule(action, name, *args)
    except (OSError, ValueError):  # a syscall this architecture does not have
        pass


def build_filter(own_processes_only: bool = False):
    """A filter to load later in a job process, or None where seccomp is unavailable."""
    if pyseccomp is None:
        return None
    deny = pyseccomp.ERRNO(errno.EPERM)
    flt = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in DENIED:
        _add(flt, deny, name)
    if own_processes_only:
        for name, pid_arg in _OTHER_PROCESSES:
            args = () if pid_arg is None else (pyseccomp.Arg(pid_arg, pyseccomp.NE, 0),)
            _add(flt, deny, name, *args)
    for command in _FCNTL_CHANNELS:
        flt.add_rule(deny, "fcntl", pyseccomp.Arg(1, pyseccomp.EQ, command))
    for flag in _NS_FLAGS:
        flt.add_rule(deny, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory a filter cannot read: make libc fall back to clone.
    flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    return flt
