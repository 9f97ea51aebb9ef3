"""A course as files: snippet `.md` files and its `_index.md` (title, prose, order, sections).

From a folder or from a zip or tar archive. Archives are hostile input: members are counted
and read no further than their limits whatever their headers declare (zip bombs), names with
`..`, absolute paths and links are refused (path traversal), and nothing is ever extracted.
"""

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..i18n import _
from . import safe_yaml
from .errors import Problem
from .files import MAX_BYTES
from .frontmatter import split_front_matter

INDEX = "_index.md"
DIRECTORY = object()  # what a directory member reads as: counted, never read
# What a damaged archive or stream raises while it is read, besides the archive modules' own errors.
_UNREADABLE = (OSError, EOFError, ValueError, RuntimeError, NotImplementedError, zlib.error, lzma.LZMAError)
MAX_FILES = 200
MAX_TOTAL = 16 << 20  # bytes of all members together, decompressed


@dataclass(frozen=True)
class Section:
    title: str
    snippets: tuple[str, ...]
    intro: str = ""  # Markdown shown under the section's title, before its snippets


@dataclass(frozen=True)
class CourseIndex:
    title: str
    prose: str  # Markdown shown above the course on the home page
    sections: tuple[Section, ...] = ()

    @property
    def order(self) -> list[str]:
        return [s for section in self.sections for s in section.snippets]


class ArchiveRefused(ValueError):
    """The archive as a whole cannot be read: its problems, each a sentence for the teacher."""


def parse_index(text: str, problems: list[Problem]) -> CourseIndex:
    """`_index.md`: optional front matter with `title` and `sections` (a list of
    `{title, intro, snippets: [id, …]}`, intro optional), then prose. Problems go to `problems`."""
    split = split_front_matter(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    if split is None:
        return CourseIndex("codecloze", text.strip())
    try:
        meta = safe_yaml.load(split[0]) or {}
    except Exception:  # noqa: BLE001 - any YAML failure is the author's to fix
        meta = None
    if not isinstance(meta, dict):
        problems.append(Problem(1, _("_index.md 的 front matter 必须是“键: 值”的映射")))
        meta = {}
    return CourseIndex(str(meta.get("title", "codecloze")), split[1].strip(), _sections(meta.get("sections"), problems))


def _sections(raw, problems: list[Problem]) -> tuple[Section, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(Problem(1, _("sections 必须是列表，每项有 title 和 snippets")))
        return ()
    out = []
    for item in raw:
        ids = item.get("snippets") if isinstance(item, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            problems.append(Problem(1, _("sections 的每一项需要 title 和 snippets（片段 id 的列表）")))
            continue
        out.append(Section(str(item.get("title") or ""), tuple(ids), str(item.get("intro") or "")))
    return tuple(out)


def read_dir(folder: Path) -> dict[str, bytes]:
    """Every `*.md` of a folder (not its subfolders), by file name; read at most one byte past
    the limit, so the size check stays cheap. A symbolic link is refused, never followed."""
    paths = sorted(folder.glob("*.md"))
    links = [path.name for path in paths if path.is_symlink()]
    if links:
        raise ArchiveRefused([_("%(name)s 是符号链接，不会被读取。", name=name) for name in links])
    out = {}
    for path in paths:
        if path.is_file():
            with path.open("rb") as file:
                out[path.name] = file.read(MAX_BYTES + 1)
    return out


def read_archive(data: bytes) -> dict[str, bytes]:
    """The `.md` members of a zip or tar (gzip, bz2, xz too) by file name; other files are
    ignored. ArchiveRefused lists why the archive cannot be taken."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        return _bounded(_zip_members(data))
    try:
        return _bounded(_tar_members(data))
    except tarfile.TarError:
        raise ArchiveRefused([_("这不是 zip 或 tar 压缩包。")]) from None


def _zip_members(data: bytes):
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    yield info.filename, DIRECTORY
                elif stat.S_ISLNK(info.external_attr >> 16):  # a link is never read as a file
                    yield info.filename, None
                else:
                    with archive.open(info) as member:
                        yield info.filename, member.read(MAX_BYTES + 1)
    except (zipfile.BadZipFile, *_UNREADABLE) as err:
        raise ArchiveRefused([_("zip 压缩包读不出来：%(err)s", err=_printable(str(err))[:200])]) from None


def _decompressed(data: bytes) -> bytes:
    """A compressed tar's bytes, decompressed no further than any valid course can be."""
    opener = next((o for magic, o in _COMPRESSED if data.startswith(magic)), None)
    if opener is None:
        return data
    limit = MAX_TOTAL + 2 * tarfile.BLOCKSIZE * (MAX_FILES + 1) + tarfile.RECORDSIZE
    try:
        with opener(io.BytesIO(data)) as stream:
            plain = stream.read(limit + 1)
    except _UNREADABLE as err:
        raise ArchiveRefused([_("压缩包读不出来：%(err)s", err=_printable(str(err))[:200])]) from None
    if len(plain) > limit:
        raise ArchiveRefused([_("压缩包解压后超过 %(mb)s MB。", mb=MAX_TOTAL >> 20)])
    return plain


_COMPRESSED = (
    (b"\x1f\x8b", lambda f: gzip.GzipFile(fileobj=f)),
    (b"BZh", bz2.BZ2File),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
)


def _tar_members(data: bytes):
    plain = _decompressed(data)  # refuses a damaged compressed stream itself
    try:
        with tarfile.open(fileobj=io.BytesIO(plain), mode="r:") as archive:
            for info in archive:
                if info.isdir():
                    yield info.name, DIRECTORY
                elif not info.isfile():  # links, devices, fifos: never followed
                    yield info.name, None
                else:
                    member = archive.extractfile(info)
                    yield info.name, member.read(MAX_BYTES + 1) if member else b""
    except _UNREADABLE as err:  # a stream damaged after its first blocks
        raise ArchiveRefused([_("压缩包读不出来：%(err)s", err=_printable(str(err))[:200])]) from None


def _printable(text: str) -> str:
    """A name or message as text any reply can carry: bytes that were not UTF-8 become U+FFFD."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _bounded(members) -> dict[str, bytes]:
    out, problems, total, count = {}, [], 0, 0
    for raw_name, data in members:
        count += 1  # directories too: 80,000 empty entries are no course
        if count > MAX_FILES:
            raise ArchiveRefused([_("压缩包里的文件超过 %(n)s 个。", n=MAX_FILES)])
        name = _printable(raw_name)
        if name != raw_name:
            problems.append(_("压缩包成员 %(name)s 的名字不是 UTF-8。", name=name[:200]))
            continue
        if data is DIRECTORY:
            continue
        path = PurePosixPath(name.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts:
            problems.append(_("压缩包成员 %(name)s 的路径不允许（绝对路径或 ..）。", name=name[:200]))
            continue
        if data is None:
            problems.append(_("压缩包成员 %(name)s 不是普通文件（链接等不会被读取）。", name=name[:200]))
            continue
        if path.suffix != ".md" or path.name.startswith("."):
            continue
        total += len(data)
        if total > MAX_TOTAL:
            raise ArchiveRefused([_("压缩包解压后超过 %(mb)s MB。", mb=MAX_TOTAL >> 20)])
        if path.name in out:
            problems.append(_("压缩包里有两个 %(name)s。", name=path.name))
        out[path.name] = data
    if problems:
        raise ArchiveRefused(problems)
    return out
