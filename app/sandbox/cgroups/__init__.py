"""The kernel's accounting for each job's whole process tree: cgroup v2, else v1, else none.

One cgroup per slot, made on first use and reused (slots are pooled), all under
`codecloze-<server pid>` inside the cgroup this server already runs in, so whatever bounds the
server still bounds its jobs. Memory counts everything a job's processes touch, shmem, tmpfs
and memfd pages included; pids counts every process whatever its uid or session; cpu gives
each job an equal share and at most one CPU, and the tree's CPU time. v2 is used where its
memory, pids and cpu controllers are offered to this process's cgroup (v2.py), v1 where the
host has them in v1 hierarchies (v1.py). Where neither is usable, `open_cgroups` returns None
and the server polls /proc instead (watch.py), as /healthz then says, with the reasons.
"""

from . import discovery
from .files import remove_server_trees
from .slots import SlotCgroups
from .v1 import V1Cgroups
from .v2 import V2Cgroups

OFF = "turned off (Sandbox(cgroups=False))"

__all__ = ["SlotCgroups", "accounting", "open_cgroups", "protections", "remove_server_trees"]


def open_cgroups(limits: dict, workers: int = 1, enabled: bool = True) -> tuple[SlotCgroups | None, dict]:
    """The slots' cgroups (v2 where usable, else v1, else None) and why each version before the
    one used (all of them, for None) is not used."""
    if not enabled:
        return None, {"v2": OFF, "v1": OFF}
    not_used = {}
    versions = (("v2", discovery.v2_directory, V2Cgroups), ("v1", discovery.v1_hierarchies, V1Cgroups))
    for version, find, kind in versions:
        try:
            where, why = find()
            if where:
                return kind.open(where, limits, workers), not_used
        except OSError as exc:
            why = f"{exc}"
        not_used[version] = why
    return None, not_used


def accounting(cgroups: SlotCgroups | None, not_used: dict) -> dict:
    """For the ready announcement and /healthz: which version bounds the trees, with each
    controller's directory, or polling; and why the versions not used are not."""
    return {
        "cgroups": cgroups.version if cgroups else None,
        "tree_limits": "cgroup" if cgroups else "polling",
        "controllers": cgroups.controllers() if cgroups else {},
        "not_used": not_used,
    }


def protections(cgroups: SlotCgroups | None) -> dict[str, bool]:
    controllers = cgroups.controllers() if cgroups else {}
    return {f"cgroup_{name}": name in controllers for name in discovery.V2_CONTROLLERS}
