"""Thin ctypes wrappers for the Linux calls Python 3.11 lacks (namespaces, mounts, prctl)."""

import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 38, 36

MADV_HUGEPAGE, MADV_COLLAPSE, MADV_PAGEOUT = 14, 25, 21

_SYS_MOUNT_SETATTR = 442  # same number on x86_64 and arm64
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine, 155)
MNT_DETACH = 2
_AT_FDCWD, _AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID = 0x1, 0x2


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(fd, nstype), "setns")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: None if s is None else s.encode()
    _check(_libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def umount(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(target.encode(), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_libc.syscall(_SYS_PIVOT_ROOT, new_root.encode(), put_old.encode()), "pivot_root")


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def set_mount_attrs_recursive(path: str, attrs: int) -> None:
    """mount_setattr(2): one call makes a whole tree read-only, submounts included."""
    attr = _MountAttr(attrs, 0, 0, 0)
    _check(
        _libc.syscall(
            _SYS_MOUNT_SETATTR, _AT_FDCWD, path.encode(), _AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)
        ),
        f"mount_setattr {path}",
    )


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except OSError:
        return 63


def drop_bounding_set() -> None:
    """No capability can ever come back, not even through execve of a root-owned binary."""
    for cap in range(_last_cap() + 1):
        prctl(PR_CAPBSET_DROP, cap)


def clear_capabilities() -> None:
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")


CAP_SETGID, CAP_SETUID, CAP_SYS_ADMIN = 6, 7, 21


def has_capability(cap: int) -> bool:
    with open("/proc/self/status") as f:
        effective = next(line for line in f if line.startswith("CapEff:"))
    return bool(int(effective.split()[1], 16) >> cap & 1)


def madvise(start: int, length: int, advice: int) -> bool:
    return _libc.madvise(start, length, advice) == 0


def mappings() -> list[tuple[int, int, str, str]]:
    """This process's mappings: (start, end, permissions, path; "" when anonymous)."""
    found = []
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split(None, 5)
            start, end = (int(x, 16) for x in fields[0].split("-"))
            found.append((start, end, fields[1], fields[5].strip() if len(fields) > 5 else ""))
    return found


def write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
