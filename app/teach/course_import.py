"""Importing a course at once: every file validated, every problem of every file reported, and
all of it saved in one transaction or nothing (`codecloze import DIR`, `POST /api/import`,
`/teach/import`). A preview says what the import would do and names it by a fingerprint; a
confirm carrying that fingerprint saves only if the files, the choices and what the server holds
are still what the preview saw."""

import asyncio
import hashlib
from dataclasses import dataclass

from ..i18n import _
from ..snippets.course import INDEX
from ..snippets.errors import Problem
from ..snippets.model import Snippet
from ..snippets.validate import validate
from .course_home import HomeChange, home_change, read_index


@dataclass(frozen=True)
class ImportReport:
    problems: dict[str, list[Problem]]  # per file name, in name order; an empty list: that file is fine
    snippets: list[Snippet]  # the valid snippets in the files (saved only when `saved`)
    saved: bool = False
    changes: dict[str, str] | None = None  # per snippet id: new, changed or unchanged (before the import)
    home: HomeChange | None = None  # what the course's `_index.md` does to the home page
    fingerprint: str = ""  # names what a preview saw: the files, the choices, the server's state
    stale: bool = False  # a confirm whose files or server changed since its preview: nothing saved

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())

    def as_json(self) -> dict:
        files = [
            {"file": name, "ok": not found, "problems": [p.as_json() for p in found]}
            for name, found in self.problems.items()
        ]
        if not self.ok:  # a refusal: which files are wrong, and nothing that reads as saved
            return {"saved": False, "files": files}
        outcome = {"changes": self.changes or {}, "home": self.home.as_json() if self.home else None}
        if self.saved:
            return {"saved": True, "snippets": [s.id for s in self.snippets], **outcome, "files": files}
        body = {"saved": False, "preview": {"fingerprint": self.fingerprint, **outcome}, "files": files}
        if self.stale:
            body["error"] = [stale_message()]
        return body


def stale_message() -> str:
    return _("预览之后，文件或服务器上的片段变了：什么也没有保存。请看新的预览，再确认一次。")


async def import_course(
    files: dict[str, bytes],
    catalog,
    *,
    sandbox,
    packages,
    publish: bool,
    home: bool = False,
    preview: bool = False,
    expect: str | None = None,
    teacher: int | None = None,
) -> ImportReport:
    """Validate every `.md` (snippets by file name, `_index.md` for the home page), then save all
    of them or none. The `_index.md` changes the home page only with `home`; `preview` saves
    nothing; `expect` saves only what the preview of that fingerprint saw. A teacher's account
    (`teacher`; None: an admin) imports over its own snippets only, and not the home page."""
    problems: dict[str, list[Problem]] = {}
    snippets = []
    for name in sorted(files):
        if name.startswith("_"):
            continue
        found, snippet = await _snippet(name, files[name], catalog, sandbox, packages)
        if snippet and teacher is not None and catalog.is_uploaded(snippet.id) and catalog.owner(snippet.id) != teacher:
            found = [
                *found,
                Problem(None, _("“%(id)s” 是另一位教师的片段：只有上传它的教师和管理员能覆盖它。", id=snippet.id)),
            ]
            snippet = None
        problems[name] = found
        snippets += [snippet] if snippet else []
    known = {s.id for s in snippets} | {s.id for s in catalog.library.all(include_hidden=True)}
    # YAML of up to 256 KB: off the event loop
    index = await asyncio.to_thread(read_index, files, known, problems, home)
    if not snippets and not any(problems.values()):
        problems.update(_nothing_to_import(files, home))
    changes = {s.id: change(catalog.library.get(s.id), s) for s in snippets}
    shown = home_change(catalog.library, index[2], home) if index else None
    fingerprint = _fingerprint(files, catalog.library, snippets, shown, publish)
    report = ImportReport(problems, snippets, changes=changes, home=shown, fingerprint=fingerprint)
    if not report.ok or preview:
        return report
    if expect is not None and expect != fingerprint:
        return ImportReport(problems, snippets, changes=changes, home=shown, fingerprint=fingerprint, stale=True)
    catalog.save_course(snippets, index[:2] if index and home else None, publish, teacher)
    return ImportReport(problems, snippets, saved=True, changes=changes, home=shown, fingerprint=fingerprint)


def _nothing_to_import(files: dict[str, bytes], home: bool) -> dict[str, list[Problem]]:
    if INDEX in files and not home:
        return {
            INDEX: [
                Problem(
                    None, _("只有 _index.md：它只在勾选“用 _index.md 更新主页”时导入（命令行 --home，API home=true）。")
                )
            ]
        }
    if INDEX in files:
        return {}
    return {".": [Problem(None, _("没有找到任何片段文件（.md）。"))]}


def change(before: Snippet | None, after: Snippet) -> str:
    """What an import does to a snippet: adds it, makes a new version, or leaves it as it is."""
    if before is None:
        return "new"
    return "unchanged" if before.version == after.version else "changed"


def _fingerprint(files: dict[str, bytes], library, snippets: list[Snippet], home: HomeChange | None, publish) -> str:
    """One name for what an import would do: every file's bytes, the choices, and the current
    version of every snippet and of the home page it would change."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0{hashlib.sha256(files[name]).hexdigest()}\0".encode())
    for snippet in snippets:
        before = library.get(snippet.id)
        digest.update(f"{snippet.id}\0{before.version if before else '-'}\0".encode())
    shown = home.as_json() if home else None
    digest.update(f"{publish}\0{shown}\0{library.course_version}\0".encode())
    return digest.hexdigest()[:32]


async def _snippet(name: str, data: bytes, catalog, sandbox, packages) -> tuple[list[Problem], Snippet | None]:
    snippet_id = name.removesuffix(".md")
    if snippet_id in catalog.bundled:
        return [
            Problem(None, _("“%(id)s” 是随程序发布的内置片段，不能导入覆盖；请换一个文件名（id）。", id=snippet_id))
        ], None
    report = await validate(data, snippet_id, sandbox=sandbox, editing=True, packages=packages)
    return report.problems, report.snippet if report.ok else None
