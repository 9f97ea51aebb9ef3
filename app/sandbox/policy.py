"""Which confinement steps jobs get, decided from what the start-up probe measured."""

import os
import shutil
import tempfile

from . import linux

# Every step a job process can take, in the order confine.py takes them.
STEPS = (
    "net_namespace",
    "ipc_namespace",
    "mount_namespace",
    "private_view",
    "rlimits",
    "bounding_set",
    "unprivileged_uid",
    "capabilities",
    "no_new_privs",
    "seccomp",
)


def probe_plan(zygote: dict, namespaces: bool = True) -> dict:
    """Try everything the zygote could prepare; the probe records what worked."""
    plan = dict.fromkeys(STEPS, True)
    for step in ("pid_namespace", "net_namespace", "ipc_namespace"):
        plan[step] = namespaces
    plan["mount_namespace"] = namespaces and zygote.get("view") is not None
    plan["unprivileged_uid"] = linux.has_capability(linux.CAP_SETUID) and linux.has_capability(linux.CAP_SETGID)
    plan["seccomp"] = zygote.get("seccomp", False)
    plan["tmp_binds"] = (zygote.get("view") or {}).get("under_tmp", [])
    plan["shared_namespaces"] = namespaces and zygote.get("shared_namespaces", False)
    return plan


UID_BLOCK = 64  # slots per server; a block of uids no other process uses


def _uids_in_use() -> set[int]:
    used = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                used.add(os.stat(f"/proc/{name}").st_uid)
            except OSError:
                pass
    return used


def pick_uid_base(first: int = 60000, blocks: int = 512) -> int:
    """Several servers on one host (one per web worker) must not share job uids: start at a
    block chosen by pid and take the first block that no running process uses."""
    used = _uids_in_use()
    start = os.getpid() % blocks
    for i in range(blocks):
        base = first + UID_BLOCK * ((start + i) % blocks)
        if not used.intersection(range(base, base + UID_BLOCK)):
            return base
    raise RuntimeError("no free block of uids for job processes")


def strict_plan(done: dict, pid_namespace: bool, probed: dict) -> dict:
    """Exactly the steps that succeeded in the probe; any later failure aborts that job."""
    plan = {step: bool(done.get(step)) for step in STEPS}
    plan["pid_namespace"] = pid_namespace
    plan["tmp_binds"] = probed.get("tmp_binds", [])
    plan["shared_namespaces"] = probed.get("shared_namespaces", False)
    return plan


def probe_spec(zygote: dict, limits: dict, data_dirs: list[str]) -> dict:
    view = zygote.get("view") or {}
    return {
        "limits": limits,
        "data_dirs": data_dirs,
        "server_uid": os.getuid(),
        "stdlib_module": "colorsys",
        "root": view.get("root", []),
        "tmp_binds": view.get("under_tmp", []),
        **{k: zygote[k] for k in ("pid_ns", "mnt_ns")},  # jobs get their own of these
        **{k: zygote["host_ns"][k] for k in ("net_ns", "ipc_ns")},
    }  # and are never in the host's


SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")


def sweep_shared_dirs(uid: int) -> list[str]:
    """Without a private view a job can write into the host's world-writable dirs; when it had
    a uid of its own, whatever that uid owns there afterwards is its leftover."""
    removed = []
    for directory in SHARED_WRITABLE:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
                removed.append(entry.path)
            except OSError:
                pass
    return removed


class WorkDirs:
    """On-disk work dirs, only for hosts where a job cannot have a private tmpfs. The root is
    named after this server's pid, so that a later server removes it if this one is killed."""

    PREFIX = "codecloze-jobs-"

    def __init__(self):
        self.root: str | None = None

    def create(self, uid: int | None) -> str:
        if self.root is None:
            _remove_stale_roots(tempfile.gettempdir(), self.PREFIX)
            self.root = tempfile.mkdtemp(prefix=f"{self.PREFIX}{os.getpid()}-")
            os.chmod(self.root, 0o711)  # jobs may enter their own dir but not list the others
        path = tempfile.mkdtemp(dir=self.root)
        if uid is not None:
            os.chown(path, uid, uid)
        return path

    @staticmethod
    def remove(path: str | None) -> None:
        if path:
            shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        self.remove(self.root)


def _remove_stale_roots(directory: str, prefix: str) -> None:
    for entry in os.scandir(directory):
        pid = entry.name[len(prefix) :].split("-")[0]
        if entry.name.startswith(prefix) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(entry.path, ignore_errors=True)
