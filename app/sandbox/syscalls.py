"""The seccomp filter a job runs under: no sockets, no new namespaces, no kernel-surface extras.

Everything not listed is allowed; the rest of the isolation comes from namespaces, the
unprivileged uid and rlimits. The filter is built once in the zygote and loaded per job.
"""
import errno

from . import linux

try:
    import pyseccomp
except (ImportError, RuntimeError):  # missing package or missing libseccomp2
    pyseccomp = None

DENIED = (
    # networking of any kind, including unix sockets to local services
    "socket", "connect", "bind", "listen", "accept", "accept4",
    # leaving or reshaping the sandbox
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr",
    "open_tree", "move_mount", "fsopen", "fsmount", "fsconfig", "fspick",
    # reaching into other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
    # large kernel attack surface a learner's code never needs
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "syslog", "quotactl",
)
_NS_FLAGS = (linux.CLONE_NEWNS, linux.CLONE_NEWUTS, linux.CLONE_NEWIPC, linux.CLONE_NEWUSER,
             linux.CLONE_NEWPID, linux.CLONE_NEWNET, 0x02000000, 0x00000080)  # NEWCGROUP, NEWTIME


def build_filter():
    """A loaded-later filter object, or None where seccomp is unavailable."""
    if pyseccomp is None:
        return None
    deny = pyseccomp.ERRNO(errno.EPERM)
    flt = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in DENIED:
        try:
            flt.add_rule(deny, name)
        except (OSError, ValueError):  # a syscall this architecture does not have
            pass
    for flag in _NS_FLAGS:
        flt.add_rule(deny, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory a filter cannot read: make libc fall back to clone.
    flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    return flt
