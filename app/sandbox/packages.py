"""Which installed distributions jobs may import: the named ones and what they depend on.

Read from importlib.metadata of the environment the app runs in, so the list is what is
installed, never a guess. Each offered distribution contributes its top-level paths inside its
site-packages directory (packages, single modules, bundled `.libs`, its `.dist-info`); the jobs'
root binds exactly those (mounts.py), so everything else of site-packages is absent there.
"""

import csv
import io
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePosixPath

DEFAULT = ("torch", "numpy", "einops")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class Offered:
    name: str  # normalised distribution name
    version: str
    paths: tuple[Path, ...]  # top-level entries of its site-packages directory
    modules: tuple[str, ...]  # top-level import names


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def parse_setting(value: str | None) -> tuple[str, ...]:
    """`CODECLOZE_SANDBOX_PACKAGES`: comma-separated distribution names."""
    names = DEFAULT if value is None else [n for n in value.split(",") if n.strip()]
    return tuple(dict.fromkeys(normalise(n) for n in names))


def _applies(requirement: str) -> bool:
    """Requirements behind an extra are not installed for us; other markers are evaluated."""
    _, _, marker = requirement.partition(";")
    if not marker.strip():
        return True
    if "extra" in marker:
        return False
    try:
        from packaging.markers import Marker
    except ImportError:  # without packaging, offering one distribution too many is harmless
        return True
    return Marker(marker).evaluate()


def _requires(dist: metadata.Distribution) -> list[str]:
    found = (_NAME.match(r) for r in dist.requires or () if _applies(r))
    return [normalise(m.group(1)) for m in found if m]


def _installed(name: str) -> metadata.Distribution | None:
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None


def closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The named distributions that are installed and, recursively, what they require."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in seen or (dist := _installed(name)) is None:
            continue
        seen[name] = dist
        todo.extend(_requires(dist))
    return list(seen.values())


def _top_names(dist: metadata.Distribution) -> set[str]:
    """The first part of every path the distribution installed, as `dist.files` gives them.
    RECORD is read row by row: `dist.files` makes a path object of each of torch's ~20,000
    rows at once, and the memory they leave scattered stays with the process for its life."""
    record = dist.read_text("RECORD")
    if not record:  # egg-info and the like: what importlib.metadata reads for them
        return {f.parts[0] for f in dist.files or () if f.parts}
    names = set()
    for row in csv.reader(io.StringIO(record)):
        if not row:
            continue
        first = row[0].split("/", 1)[0]
        if first in ("", "."):  # absolute or `./`: the path's own first part
            parts = PurePosixPath(row[0]).parts
            first = parts[0] if parts else None
        if first is not None:
            names.add(first)
    return names


def _top_paths(dist: metadata.Distribution) -> tuple[Path, ...]:
    base = Path(dist.locate_file("")).resolve()
    tops = {base / name for name in _top_names(dist) if name not in ("..", "__pycache__")}
    tops = {p for p in tops if not p.name.endswith(".pth")}  # start-up hooks, never imported
    return tuple(sorted(p for p in tops if p.exists()))


def _modules(paths: tuple[Path, ...]) -> tuple[str, ...]:
    names = set()
    for path in paths:
        stem = path.name.split(".", 1)[0]
        if path.suffix in (".py", ".so") or (path.is_dir() and "." not in path.name and path.name.isidentifier()):
            names.add(stem)
    return tuple(sorted(n for n in names if n.isidentifier()))


@lru_cache(maxsize=8)  # fixed while the app runs; the scan would add ~29 ms CPU to each upload and /healthz
def offered(names: tuple[str, ...]) -> tuple[Offered, ...]:
    out = []
    for dist in closure(names):
        paths = _top_paths(dist)
        out.append(Offered(normalise(dist.metadata["Name"]), dist.version, paths, _modules(paths)))
    return tuple(out)


def importable(names: tuple[str, ...]) -> frozenset[str]:
    """Top-level module names a job can import: the standard library's and the offered ones'."""
    return frozenset(sys.stdlib_module_names) | {m for o in offered(names) for m in o.modules}


def site_dirs() -> list[Path]:
    """Every site-packages directory of this interpreter: covered in the jobs' root."""
    import site
    import sysconfig

    base = {"base": sys.base_prefix, "platbase": sys.base_prefix}  # a venv's interpreter has its own
    dirs = [
        *site.getsitepackages(),
        site.getusersitepackages(),
        sysconfig.get_path("purelib", vars=base),
        sysconfig.get_path("platlib", vars=base),
    ]
    dirs += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return sorted({Path(p).resolve() for p in dirs if Path(p).is_dir()})


def listing(names: tuple[str, ...]) -> list[dict]:
    """What /healthz and the upload page show: each offered distribution, its version, and
    whether the setting names it (else it comes as a dependency)."""
    return [{"name": o.name, "version": o.version, "named": o.name in names} for o in offered(names)]
