"""Which confinement steps jobs get, decided from what the start-up probe measured."""
import os
import shutil
import tempfile

from . import linux

# Every step a job process can take, in the order confine.py takes them.
STEPS = ("net_namespace", "ipc_namespace", "mount_namespace", "private_view", "rlimits",
         "bounding_set", "unprivileged_uid", "capabilities", "no_new_privs", "seccomp")


def probe_plan(zygote: dict, namespaces: bool = True) -> dict:
    """Try everything the zygote could prepare; the probe records what worked."""
    plan = dict.fromkeys(STEPS, True)
    for step in ("pid_namespace", "net_namespace", "ipc_namespace"):
        plan[step] = namespaces
    plan["mount_namespace"] = namespaces and zygote.get("view") is not None
    plan["unprivileged_uid"] = linux.has_capability(linux.CAP_SETUID) and linux.has_capability(linux.CAP_SETGID)
    plan["seccomp"] = zygote.get("seccomp", False)
    return plan


def strict_plan(done: dict, pid_namespace: bool) -> dict:
    """Exactly the steps that succeeded in the probe; any later failure aborts that job."""
    plan = {step: bool(done.get(step)) for step in STEPS}
    plan["pid_namespace"] = pid_namespace
    return plan


def probe_spec(zygote: dict, limits: dict, data_dirs: list[str]) -> dict:
    return {"limits": limits, "data_dirs": data_dirs, "server_uid": os.getuid(),
            "stdlib_module": "colorsys",
            **{k: zygote[k] for k in ("pid_ns", "net_ns", "ipc_ns", "mnt_ns")}}


class WorkDirs:
    """On-disk work dirs, only for hosts where a job cannot have a private tmpfs."""

    def __init__(self):
        self.root: str | None = None

    def create(self, uid: int | None) -> str:
        if self.root is None:
            self.root = tempfile.mkdtemp(prefix="codecloze-jobs-")
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
