"""The zygote: imports torch once, then forks one job process per request from the server.

It never sees a learner's code (the server talks to job processes directly over pipes the
zygote hands it), so nothing of one learner's submission is in the memory the next job is
forked from. It reaps its children and tells the server how each one ended.
"""

import gc
import json
import os
import selectors
import signal
import socket
from pathlib import Path

from . import child, confine, hugepages, linux, mounts, orphans, packages, pageout, runtime, syscalls, userns, watch


def _namespaces() -> dict[str, int]:
    return {f"{name}_ns": os.stat(f"/proc/self/ns/{name}").st_ino for name in ("pid", "net", "ipc", "mnt")}


class Zygote:
    def __init__(self, sock: socket.socket, config: dict):
        self.sock, self.config = sock, config
        self.children: dict[int, tuple[int, bool]] = {}  # pid -> (slot, has its own pid namespace)
        # Jobs without a pid namespace of their own get the filter that protects other processes.
        self.filters = {True: syscalls.build_filter(), False: syscalls.build_filter(own_processes_only=True)}
        self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY)

    def send(self, message: dict, fds: list[int] = ()) -> None:
        socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))

    def spawn(self, request: dict) -> None:
        pipes = [os.pipe() for _ in range(4)]  # job (server writes), result, out, err
        ours = {"job": pipes[0][0], "result": pipes[1][1], "out": pipes[2][1], "err": pipes[3][1]}
        theirs = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][0]]
        try:
            new_pid_ns = self._enter_new_pid_ns(request)
            try:
                pid = os.fork()
                if pid == 0:
                    child.job_main(ours, request, self.filters[new_pid_ns])
            finally:
                if new_pid_ns:
                    linux.setns(self.own_pid_ns, linux.CLONE_NEWPID)
            pidfd = os.pidfd_open(pid)
            self.children[pid] = (request["slot"], new_pid_ns)
            self.send({"spawned": request["slot"], "pid": pid, "pid_namespace": new_pid_ns}, [pidfd] + theirs)
            os.close(pidfd)
        except OSError as exc:
            self.send({"spawn_failed": request["slot"], "error": str(exc)})
        finally:
            for fd in list(ours.values()) + theirs:
                os.close(fd)

    @staticmethod
    def _enter_new_pid_ns(request: dict) -> bool:
        """Makes the next child pid 1 of a fresh namespace (the probe just records a failure)."""
        if not request["plan"].get("pid_namespace"):
            return False
        try:
            linux.unshare(linux.CLONE_NEWPID)
        except OSError:
            if request["strict"]:
                raise
            return False
        return True

    def reap(self) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid not in self.children:  # an orphan this subreaper adopted and killed
                continue
            slot, own_pid_ns = self.children.pop(pid)
            if not own_pid_ns:
                orphans.end_job_leftovers(pid, set(self.children))
            self.send({"exited": slot, "status": status, "cpu": usage.ru_utime + usage.ru_stime})

    def serve(self) -> None:
        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        selector = selectors.DefaultSelector()
        selector.register(self.sock, selectors.EVENT_READ)
        selector.register(wake_r, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj is self.sock:
                    data = self.sock.recv(1 << 20)
                    if not data:
                        return
                    self.spawn(json.loads(data))
                else:
                    os.read(wake_r, 4096)
            self.reap()

    def stop(self) -> None:
        for pid in self.children:
            os.kill(pid, signal.SIGKILL)


def _enter_empty_namespaces() -> bool:
    """One empty network, IPC and UTS namespace for all jobs, made once: with sockets and IPC
    refused by seccomp nothing can pass through it, and no job pays for making and tearing
    down its own."""
    try:
        linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
    except OSError:
        return False  # each job then makes its own
    return True


def _prepare(sock: socket.socket, config: dict) -> dict:
    """Everything before the first job: namespaces, torch, the jobs' view of the filesystem."""
    namespaces = config.get("namespaces", True)
    info = {"user_namespace": False, "host_ns": _namespaces()}
    if namespaces and not linux.has_capability(linux.CAP_SYS_ADMIN):
        try:
            userns.become_root_of_own_namespaces(sock)
            info["user_namespace"] = True
        except OSError as exc:
            info["user_namespace_error"] = str(exc)
    info["pid"] = int(os.readlink("/proc/self"))  # as the host numbers it, even inside a pid namespace
    info["runtime"] = runtime.import_runtime()
    runtime.warm_up()
    if namespaces:
        try:
            info["view"] = mounts.prepare_shared_view(
                runtime.needed_paths(),
                [Path(p) for p in config["data_dirs"]],
                packages.site_dirs(),
                runtime.offered_paths(config.get("packages", packages.DEFAULT)),
            )
        except OSError as exc:
            info["view_error"] = str(exc)
        info["shared_namespaces"] = _enter_empty_namespaces()
    return info


def main(sock: socket.socket, config: dict) -> None:
    """Runs in a process forked from the server before it imported anything heavy."""
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # see orphans.py
    confine.close_other_fds({sock.fileno(), 2})
    null = os.open(os.devnull, os.O_RDWR)  # takes fd 0; keeps job pipes off 0 and 1
    os.dup2(null, 1)
    try:
        info = _prepare(sock, config)
        zygote = Zygote(sock, config)
    except BaseException as exc:  # noqa: B902 - the server passes the reason on to the web app
        socket.send_fds(sock, [json.dumps({"error": f"zygote: {type(exc).__name__}: {exc}"}).encode()], [])
        os._exit(1)
    info["seccomp"] = zygote.filters[True] is not None
    gc.collect()
    gc.freeze()  # the collector would otherwise touch, and so copy, every object in each job
    info["huge_regions"] = hugepages.collapse()
    info["paged_out"] = pageout.page_out()
    info["anon_bytes"] = watch.anonymous_bytes(os.getpid())  # what every job starts from
    zygote.send({"zygote": info | _namespaces()})
    try:
        zygote.serve()
    finally:
        zygote.stop()
        os._exit(0)
