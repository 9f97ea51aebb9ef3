"""Importing a course at once: every file validated, every problem of every file reported, and
all of it saved in one transaction or nothing (`codecloze import DIR`, `POST /api/import`)."""

import asyncio
import re
from dataclasses import dataclass

from ..i18n import _
from ..snippets.course import INDEX, parse_index
from ..snippets.errors import Problem, SnippetInvalid, with_text
from ..snippets.files import decode
from ..snippets.model import Snippet
from ..snippets.parse import version_of
from ..snippets.validate import validate


@dataclass(frozen=True)
class ImportReport:
    problems: dict[str, list[Problem]]  # per file name, in name order; an empty list: that file is fine
    snippets: list[Snippet]  # the snippets in the files (saved when `saved`)
    saved: bool = False
    changes: dict[str, str] | None = None  # per snippet id: new, changed or unchanged (before the import)

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())

    def as_json(self) -> dict:
        return {
            "saved": self.saved,
            "snippets": [s.id for s in self.snippets],
            "changes": self.changes or {},
            "files": [
                {"file": name, "ok": not found, "problems": [p.as_json() for p in found]}
                for name, found in self.problems.items()
            ],
        }


UNKNOWN_SHOWN = 20  # ids named one by one; the rest are counted
_WORD = re.compile(r"[A-Za-z0-9_-]+")


async def import_course(files: dict[str, bytes], catalog, *, sandbox, packages, publish: bool) -> ImportReport:
    """Validate every `.md` (snippets by file name, `_index.md` for order and sections), then
    save all of them or none."""
    problems: dict[str, list[Problem]] = {}
    snippets = []
    for name in sorted(files):
        if name.startswith("_"):
            continue
        found, snippet = await _snippet(name, files[name], catalog, sandbox, packages)
        problems[name] = found
        snippets += [snippet] if snippet else []
    known = {s.id for s in snippets} | {s.id for s in catalog.library.all(include_hidden=True)}
    index = await asyncio.to_thread(_index, files, known, problems)  # YAML of up to 256 KB: off the event loop
    if not snippets and not any(problems.values()):
        problems["."] = [Problem(None, _("没有找到任何片段文件（.md）。"))]
    changes = {s.id: change(catalog.library.get(s.id), s) for s in snippets}
    report = ImportReport(problems, snippets, changes=changes)
    if not report.ok:
        return report
    catalog.save_course(snippets, index, publish)
    return ImportReport(problems, snippets, saved=True, changes=changes)


def change(before: Snippet | None, after: Snippet) -> str:
    """What an import does to a snippet: adds it, makes a new version, or leaves it as it is."""
    if before is None:
        return "new"
    return "unchanged" if before.version == after.version else "changed"


async def _snippet(name: str, data: bytes, catalog, sandbox, packages) -> tuple[list[Problem], Snippet | None]:
    snippet_id = name.removesuffix(".md")
    if snippet_id in catalog.bundled:
        return [
            Problem(None, _("“%(id)s” 是随程序发布的内置片段，不能导入覆盖；请换一个文件名（id）。", id=snippet_id))
        ], None
    report = await validate(data, snippet_id, sandbox=sandbox, editing=True, packages=packages)
    return report.problems, report.snippet if report.ok else None


def _index(files: dict[str, bytes], known: set[str], problems: dict) -> tuple[str, str] | None:
    """(version, text) of `_index.md`, its problems filed under its name: unknown ids too."""
    if INDEX not in files:
        return None
    found: list[Problem] = []
    try:
        text = decode(files[INDEX], INDEX)
    except SnippetInvalid as err:
        problems[INDEX] = err.problems
        return None
    index = parse_index(text, found)
    unknown = [snippet_id for snippet_id in dict.fromkeys(index.order) if snippet_id not in known]
    first_lines = _first_lines(text)  # one pass over the text, whatever the number of ids
    for snippet_id in unknown[:UNKNOWN_SHOWN]:
        found.append(
            Problem(
                first_lines.get(snippet_id),
                _("sections 里的 “%(id)s” 既不在导入的文件里，也不在服务器上。", id=snippet_id[:64]),
            )
        )
    if len(unknown) > UNKNOWN_SHOWN:
        found.append(Problem(None, _("还有 %(n)s 个 id 也不存在。", n=len(unknown) - UNKNOWN_SHOWN)))
    problems[INDEX] = with_text(found, text)
    return version_of(text), text


def _first_lines(text: str) -> dict[str, int]:
    """Each id-like word of the text → the first line it is on."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.split("\n"), 1):
        for word in _WORD.findall(line):
            out.setdefault(word, n)
    return out
