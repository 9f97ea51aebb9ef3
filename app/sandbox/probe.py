"""Measure, from inside a confined job process, which protections actually hold.

The server runs this once at start-up in a job process set up exactly like a real one and
reports the answers on the health page. Each check tries the thing the protection forbids.
"""

import errno
import importlib
import os
import resource
import socket
import sys
from pathlib import Path

from .mounts import TOP_LINKS

# Directories that a plain unprivileged user could write to on a normal host.
_SHARED_WRITABLE = ("/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue", "/tmp")


def _status_fields() -> dict[str, str]:
    with open("/proc/self/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def _ns(name: str) -> int:
    return os.stat(f"/proc/self/ns/{name}").st_ino


def _blocked(action) -> bool:
    try:
        action()
    except OSError:
        return True
    return False


def _socket_blocked(family: int) -> bool:
    def connect():
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.connect(("127.0.0.1", 9) if family == socket.AF_INET else "\0codecloze-probe")

    try:
        connect()
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def _writes_blocked(work_dir: str) -> bool:
    for directory in _SHARED_WRITABLE + ("/", sys.prefix):
        if os.path.realpath(directory) == os.path.realpath(work_dir) or not os.path.isdir(directory):
            continue
        path = os.path.join(directory, f".codecloze-probe-{os.getpid()}")
        if not _blocked(lambda: os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))):  # noqa: B023 (called here)
            os.unlink(path)
            return False
    return True


def _others_unreachable() -> bool:
    """Whether `kill -1` (every process this uid may signal) reaches anyone but the job."""
    try:
        os.kill(-1, 0)
    except OSError:
        return True
    return False


def _interfaces() -> set[str]:
    with open("/proc/self/net/dev") as f:
        return {line.split(":")[0].strip() for line in f if ":" in line}


def _hidden(path: str) -> bool:
    try:
        return not os.listdir(path)
    except OSError as exc:
        return exc.errno in (errno.EACCES, errno.EPERM, errno.ENOENT)


def _stdlib_importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _listing(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _tops(paths: list[str], depth: int) -> set[str]:
    """Names at `depth` below / of the given paths (/tmp/venv/lib, 2 -> {"venv"})."""
    return {Path(p).parts[depth] for p in paths if len(Path(p).parts) > depth}


def verify(spec: dict, done: dict) -> dict[str, bool]:
    status = _status_fields()
    limits = spec["limits"]
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    caps = [int(status.get(k, "0"), 16) for k in ("CapEff", "CapPrm", "CapBnd")]
    return {
        "pid_namespace": os.getpid() == 1 and pids == ["1"] and _ns("pid") != spec["pid_ns"],
        "net_namespace": _ns("net") != spec["net_ns"] and _interfaces() <= {"lo"},
        "ipc_namespace": _ns("ipc") != spec["ipc_ns"],
        "mount_namespace": _ns("mnt") != spec["mnt_ns"],
        "readonly_fs": bool(os.statvfs("/").f_flag & os.ST_RDONLY) and _writes_blocked(os.getcwd()),
        "private_tmp": os.getcwd() == "/tmp"
        and done.get("private_view", False)
        and set(os.listdir("/tmp")) <= _tops(spec["tmp_binds"], 2),
        "minimal_root": set(_listing("/")) <= _tops(spec["root"], 1) | {"proc", "tmp", *TOP_LINKS}
        and set(_listing("/etc")) <= {"ld.so.cache"},
        "hidden_data_dirs": all(_hidden(p) for p in spec["data_dirs"]),
        "other_processes_unreachable": _others_unreachable(),
        "unprivileged_uid": os.getuid() not in (0, spec["server_uid"]) and os.geteuid() != 0,
        "no_capabilities": caps == [0, 0, 0],
        "no_new_privs": status.get("NoNewPrivs") == "1",
        "seccomp": status.get("Seccomp") == "2" and _socket_blocked(socket.AF_INET) and _socket_blocked(socket.AF_UNIX),
        "rlimits": resource.getrlimit(resource.RLIMIT_NPROC)[0] == limits["max_processes"]
        and resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
        and resource.getrlimit(resource.RLIMIT_FSIZE)[0] == limits["max_file_bytes"],
        "fds_closed": len(os.listdir("/proc/self/fd")) <= 6,  # stdio, job, result, listdir's own
        "stdlib_importable": _stdlib_importable(spec["stdlib_module"]),
    }
