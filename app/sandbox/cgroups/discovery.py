"""Where this process's cgroups are, and whether the sandbox can use them.

v2: the cgroup2 mount (/proc/self/mountinfo) and this process's "0::/..." line of
/proc/self/cgroup; usable when that cgroup offers memory, pids and cpu and is writable.
v1: for each of memory, pids, cpu and cpuacct, its hierarchy's mount and this process's path
there. Each answer comes with the reason when it is not usable, for /healthz.
"""

import os

from .files import read

V2_CONTROLLERS = ("memory", "pids", "cpu")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
LEAF = "codecloze-leaf"  # where v2.enable moves the processes of the cgroup the app runs in


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(type, root inside the hierarchy, mount point, options) of every cgroup mount."""
    mounts = []
    for line in read("/proc/self/mountinfo").splitlines():
        fields = line.split()
        kind = fields[fields.index("-") + 1]
        if kind in ("cgroup", "cgroup2"):
            mounts.append((kind, fields[3], fields[4], set(fields[fields.index("-") + 3].split(","))))
    return mounts


def _paths() -> dict[str, str]:
    """controller -> this process's path in its hierarchy; "" is the v2 one."""
    mine = {}
    for line in read("/proc/self/cgroup").splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(","):
            mine[name] = path
    return mine


def _directory(root: str, mount_point: str, path: str) -> str | None:
    """path (as /proc/self/cgroup has it) under a mount of `root`, or None where not mounted."""
    if root == "/":
        return mount_point.rstrip("/") + path.rstrip("/")
    if path == root or path.startswith(root + "/"):
        return mount_point.rstrip("/") + path[len(root) :].rstrip("/")
    return None


def usable_v2(directory: str, controllers=V2_CONTROLLERS) -> str:
    """ "" when the controllers are offered to directory's children-to-be and it is writable;
    otherwise why not."""
    offered = read(f"{directory}/cgroup.controllers").split()
    missing = [name for name in controllers if name not in offered]
    if missing:
        return f"{directory} offers {' '.join(offered) or 'no controllers'}; lacks {', '.join(missing)}"
    if not (os.access(directory, os.W_OK) and os.access(f"{directory}/cgroup.subtree_control", os.W_OK)):
        return f"{directory} is not writable"
    return ""


def v2_directory() -> tuple[str | None, str]:
    """(the v2 cgroup this process runs in, "") when usable, else (None, why)."""
    mount = next((m for m in _mounts() if m[0] == "cgroup2"), None)
    path = _paths().get("")
    if mount is None or path is None:
        return None, "no cgroup2 mount" if mount is None else "this process has no cgroup v2 path"
    directory = _directory(mount[1], mount[2], path)
    if directory is None:
        return None, f"this process's cgroup {path} is outside the mount {mount[2]}"
    if os.path.basename(directory) == LEAF:  # moved there by an earlier server: use what it left
        directory = os.path.dirname(directory)
    why = usable_v2(directory)
    return (directory, "") if not why else (None, why)


def v1_hierarchies() -> tuple[dict[str, str], str]:
    """(controller -> this process's writable v1 cgroup, "") for all four, else ({}, why)."""
    mine, found = _paths(), {}
    for kind, root, mount_point, options in _mounts():
        for name in V1_CONTROLLERS:
            if kind == "cgroup" and name in options and name in mine and name not in found:
                directory = _directory(root, mount_point, mine[name])
                if directory is not None and os.access(directory, os.W_OK):
                    found[name] = directory
    missing = [name for name in V1_CONTROLLERS if name not in found]
    if missing:
        return {}, f"no writable v1 hierarchy for {', '.join(missing)}"
    return found, ""
