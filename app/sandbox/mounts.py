"""What the filesystem looks like from inside a job.

Two stages. The zygote, once: a private mount namespace in which the data dirs are covered
by empty read-only tmpfs and the interpreter's directories are reachable even when they sit
under a 0700 directory such as /root (a tmpfs over that directory, the needed paths bound
back in, everything else there hidden). Each job, on top of a copy of that: the whole tree
read-only and nosuid, a fresh size-limited tmpfs on /tmp as the work dir, and its own /proc.
"""
import os
import stat
from pathlib import Path

from . import linux


def _blocked_ancestor(path: Path, private: list[Path]) -> Path | None:
    """The outermost directory above `path` that is private or other users cannot traverse."""
    for parent in reversed(path.parents):
        if parent in private or not os.stat(parent).st_mode & stat.S_IXOTH:
            return parent
    return None


def _cover(directory: Path, keep: list[Path]) -> list[str]:
    """An empty tmpfs over `directory`, with the `keep` paths inside it bound back in."""
    fds = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in keep}  # before the tmpfs hides them
    linux.mount("tmpfs", str(directory), "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=0755,size=64k")
    for path, fd in sorted(fds.items()):
        os.makedirs(path, mode=0o755, exist_ok=True)
        linux.mount(f"/proc/self/fd/{fd}", str(path), None, linux.MS_BIND | linux.MS_REC)
        os.close(fd)
    return [str(p) for p in keep]


def _expose(needed: list[Path], private: list[Path]) -> list[str]:
    groups: dict[Path, list[Path]] = {p: [] for p in private if p.is_dir()}
    for path in needed:
        blocked = _blocked_ancestor(path, private)
        if blocked is not None and blocked != Path("/"):
            groups.setdefault(blocked, []).append(path)
    # A dir inside another covered one is hidden already (and covering it would hide kept paths).
    outer = {d: paths for d, paths in groups.items() if not any(o in d.parents for o in groups)}
    return [kept for blocked, paths in outer.items() for kept in _cover(blocked, paths)]


def _hide(data_dirs: list[Path]) -> list[str]:
    hidden = []
    for path in data_dirs:
        if path.is_dir():
            linux.mount("tmpfs", str(path), "tmpfs",
                        linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
                        "mode=0000,size=4k,nr_inodes=1")
            hidden.append(str(path))
    return hidden


def _outermost(paths: list[Path]) -> list[Path]:
    """Drop paths that lie inside another listed path (binding the outer one covers them)."""
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path == k or k in path.parents for k in kept):
            kept.append(path)
    return kept


def prepare_shared_view(needed: list[Path], data_dirs: list[Path], private: list[Path]) -> dict:
    """Zygote: enter a private mount namespace shaped for the jobs. `private` dirs are
    covered like untraversable ones (only the needed paths inside stay visible)."""
    linux.unshare(linux.CLONE_NEWNS)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    needed = _outermost([p.resolve() for p in needed if p.is_dir()])
    exposed = _expose(needed, [p.resolve() for p in private if p.resolve() != Path("/")])
    return {"exposed": exposed, "hidden": _hide([p.resolve() for p in data_dirs])}


def enter_private_view(uid: int, work_bytes: int, work_files: int, own_proc: bool) -> None:
    """Job: read-only everything, a private /tmp, and a /proc of its own pid namespace."""
    linux.set_mount_attrs_recursive("/", linux.MOUNT_ATTR_RDONLY | linux.MOUNT_ATTR_NOSUID)
    linux.mount("tmpfs", "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
                f"mode=0700,uid={uid},gid={uid},size={work_bytes},nr_inodes={work_files}")
    if own_proc:
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
