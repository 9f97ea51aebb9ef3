"""What the filesystem looks like from inside a job: a minimal root, nothing of the host's.

Two stages. The zygote, once: in a private mount namespace, a fresh tmpfs becomes the root
(pivot_root) holding only what jobs need, bound read-only at their own paths: the
interpreter, its stdlib and site-packages, the directories of the shared libraries loaded,
the loader cache, a few device nodes, /proc (each job mounts its own over it) and an empty
/tmp. Intermediate directories are the tmpfs's own (0755), so an interpreter under a 0700
home is reachable while the rest of that home does not exist there. Data dirs that fall
inside a bound path are covered by an empty tmpfs; so is every site-packages directory, into
which only the offered distributions' own paths are bound (packages.py). Each job, on top of a copy of that: the
whole tree read-only and nosuid, a fresh size-limited tmpfs on /tmp as the work dir (with
the runtime's paths under /tmp, if it is installed there, bound back in), its own /proc.
"""

import os
from pathlib import Path

from . import linux

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
FILES = ("/etc/ld.so.cache",)
TOP_LINKS = ("lib", "lib64", "lib32", "libx32")  # merged-/usr symlinks the loader cache names
_RO_BIND = linux.MS_BIND | linux.MS_REC


def mapped_dirs(maps: str = "/proc/self/maps") -> list[Path]:
    """Directories of every file mapped into this process (its shared libraries)."""
    with open(maps) as f:
        files = {line.split(None, 5)[5].strip() for line in f if line.count(" ") >= 5 and "/" in line}
    return sorted({Path(p).parent for p in files if p.startswith("/") and os.path.isfile(p)})


def outermost(paths: list[Path]) -> list[Path]:
    """Drop paths that lie inside another listed path (binding the outer one covers them)."""
    kept: list[Path] = []
    for path in sorted(set(paths), key=lambda p: len(p.parts)):
        if not any(path == k or k in path.parents for k in kept):
            kept.append(path)
    return kept


def _bind_at(root: str, sources: dict[Path, int]) -> None:
    for path, fd in sorted(sources.items()):
        target = root + str(path)
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        linux.mount(f"/proc/self/fd/{fd}", target, None, _RO_BIND)
        os.close(fd)


def _open_all(paths: list[Path]) -> dict[Path, int]:
    """O_PATH handles taken before any tmpfs hides the paths (e.g. a venv under /tmp)."""
    return {p: os.open(p, os.O_PATH) for p in paths if os.path.exists(p)}


def _hide(root: str, data_dirs: list[Path], bound: list[Path]) -> list[str]:
    """Data dirs are absent from the root unless they lie inside a bound path: cover those."""
    hidden = []
    for path in data_dirs:
        if any(b == path or b in path.parents for b in bound) and path.is_dir():
            linux.mount(
                "tmpfs",
                root + str(path),
                "tmpfs",
                linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
                "mode=0000,size=4k,nr_inodes=1",
            )
            hidden.append(str(path))
    return hidden


def _cover_sites(root: str, site_dirs: list[Path], bound: list[Path]) -> list[Path]:
    """An empty directory over each site-packages dir: installed distributions are not offered
    because the interpreter's prefix is bound, only those bound back in by name."""
    covered = []
    for path in site_dirs:
        if any(b == path or b in path.parents for b in bound):
            linux.mount(
                "tmpfs",
                root + str(path),
                "tmpfs",
                linux.MS_NOSUID | linux.MS_NODEV,
                "mode=0755,size=64k,nr_inodes=4096",
            )
            covered.append(path)
    return covered


def prepare_shared_view(
    needed: list[Path], data_dirs: list[Path], site_dirs: list[Path] = (), offered: list[Path] = ()
) -> dict:
    """Zygote: enter a private mount namespace whose root holds only what jobs need: `needed`,
    and of the site-packages dirs only the `offered` paths in them."""
    linux.unshare(linux.CLONE_NEWNS)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    bound = outermost([p.resolve() for p in needed if p.exists()])
    sites = [p.resolve() for p in site_dirs]
    bound = [b for b in bound if not any(b == s or s in b.parents for s in sites)]  # offered ones come back below
    sources = _open_all(bound + [Path(p) for p in DEVICES + FILES])
    packages = _open_all([p.resolve() for p in offered])
    proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY)
    root = "/tmp"  # in this namespace only; the host's /tmp is untouched
    linux.mount("tmpfs", root, "tmpfs", linux.MS_NOSUID, "mode=0755,size=1m,nr_inodes=4096")
    _bind_at(root, sources)
    _cover_sites(root, sites, bound)
    _bind_at(root, packages)
    os.makedirs(root + "/proc")
    linux.mount(f"/proc/self/fd/{proc}", root + "/proc", None, _RO_BIND)
    os.close(proc)
    os.makedirs(root + "/tmp", mode=0o755, exist_ok=True)
    for name in TOP_LINKS:
        if os.path.islink(f"/{name}"):
            os.symlink(os.readlink(f"/{name}"), f"{root}/{name}")
    hidden = _hide(root, [p.resolve() for p in data_dirs], bound)
    os.mkdir(root + "/.old")
    linux.pivot_root(root, root + "/.old")
    os.chdir("/")
    linux.umount("/.old", linux.MNT_DETACH)
    os.rmdir("/.old")
    linux.set_mount_attrs_recursive("/", linux.MOUNT_ATTR_RDONLY | linux.MOUNT_ATTR_NOSUID)
    under_tmp = [str(p) for p in bound if Path("/tmp") in p.parents]
    return {
        "root": sorted(str(p) for p in bound) + list(DEVICES + FILES),
        "hidden": hidden,
        "packages": sorted(str(p) for p in packages),
        "under_tmp": under_tmp,
    }


def _private_tmp(uid: int, work_bytes: int, work_files: int, keep: list[str]) -> None:
    """A fresh tmpfs on /tmp; runtime paths that live under /tmp are bound back in."""
    sources = _open_all([Path(p) for p in keep])
    linux.mount(
        "tmpfs",
        "/tmp",
        "tmpfs",
        linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
        f"mode=0700,uid={uid},gid={uid},size={work_bytes},nr_inodes={work_files}",
    )
    _bind_at("", sources)
    for path in sources:
        linux.set_mount_attrs_recursive(str(path), linux.MOUNT_ATTR_RDONLY | linux.MOUNT_ATTR_NOSUID)


def enter_private_view(uid: int, work_bytes: int, work_files: int, own_proc: bool, keep: list[str] = ()) -> None:
    """Job: read-only everything, a private /tmp, and a /proc of its own pid namespace."""
    linux.set_mount_attrs_recursive("/", linux.MOUNT_ATTR_RDONLY | linux.MOUNT_ATTR_NOSUID)
    _private_tmp(uid, work_bytes, work_files, list(keep))
    if own_proc:
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
