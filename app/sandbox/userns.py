"""For a server without CAP_SYS_ADMIN (a normal user): namespaces through a user namespace.

The zygote becomes root of a user namespace that maps only its own uid, plus a pid namespace
owned by it, so that each job can still get pid, network, ipc and mount namespaces of its
own. Jobs then run as the web app's own user (whose home is not in their root).
"""

import os
import signal
import socket

from . import linux


def _enter_user_namespace() -> None:
    uid, gid = os.getuid(), os.getgid()
    linux.unshare(linux.CLONE_NEWUSER | linux.CLONE_NEWPID)
    linux.write_file("/proc/self/setgroups", "deny")
    linux.write_file("/proc/self/uid_map", f"0 {uid} 1")  # uid 0 outside needs CAP_SETFCAP
    linux.write_file("/proc/self/gid_map", f"0 {gid} 1")


def _user_namespace_works() -> bool:
    """Tried in a throwaway child: a half-made user namespace cannot be left again."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            _enter_user_namespace()
            code = 0
        finally:
            os._exit(code)
    return os.waitpid(pid, 0)[1] == 0


def become_root_of_own_namespaces(sock: socket.socket) -> None:
    """Without CAP_SYS_ADMIN: a user namespace (root inside = our uid outside) and a pid
    namespace it owns, so that jobs can still get namespaces of their own. The zygote goes
    on as pid 1 of that namespace; the original process only waits for it."""
    if not _user_namespace_works():
        raise OSError("user namespaces are not available")
    _enter_user_namespace()
    pid = os.fork()
    if pid:
        sock.close()  # the server must see the zygote's end close when the zygote dies
        _, status = os.waitpid(pid, 0)
        os._exit(1 if status else 0)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
