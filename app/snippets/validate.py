"""The full validation of an uploaded or edited snippet: encoding, format, id, and that it runs.

Every problem found is reported at once, so an author fixes a file in one pass.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ..i18n import _
from ..sandbox.packages import importable
from ..sandbox.types import SandboxBusy, SandboxUnavailable, Verdict
from .errors import Problem, SnippetInvalid, with_text
from .files import MAX_BYTES, decode
from .imports import import_problems
from .jobs import job_for
from .labels import part_label, status_label
from .model import Snippet
from .parse import parse_draft
from .places import file_place


@dataclass(frozen=True)
class Report:
    problems: list[Problem]  # empty when valid
    snippet: Snippet | None = None  # parsed, when the format is valid
    verdict: Verdict | None = None  # reference code + check in the sandbox, when run

    @property
    def ok(self) -> bool:
        return not self.problems


async def validate(
    data: bytes | str,
    snippet_id: str,
    *,
    sandbox=None,
    taken: Callable[[str], bool] = lambda i: False,
    editing: bool = False,
    packages: tuple[str, ...] | None = None,
) -> Report:
    """Size and encoding, format, a free id (unless editing), imports the sandbox offers
    (`packages`: the distributions it offers; None: no check), then the reference run when a
    sandbox is given: every independent problem in one pass. The code is checked and run even
    when the front matter or the sections have problems; only a code block that does not
    compile, or an import the sandbox would refuse anyway, keeps it from running."""
    report = await _validate(data, snippet_id, sandbox, taken, editing, packages)
    source = report.snippet.source if report.snippet else _text_or_empty(data)
    return Report(with_text(report.problems, source), report.snippet, report.verdict)


async def _validate(data, snippet_id, sandbox, taken, editing, packages) -> Report:
    path = f"{snippet_id}.md"
    id_problems = (
        []
        if editing or not taken(snippet_id)
        else [Problem(None, _("编号 %(id)s 已被占用，请换一个。", id=snippet_id), field="id")]
    )
    try:
        text = decode(_as_bytes(data), path)
    except SnippetInvalid as err:
        return Report(list(err.problems) + id_problems)
    draft = parse_draft(text, snippet_id)
    runnable = draft.runnable  # the code, even when the front matter or the sections are wrong
    foreign = [] if packages is None or runnable is None else import_problems(runnable, importable(packages), packages)
    problems = _in_file_order(draft.problems + id_problems + foreign)
    if sandbox is None or foreign or runnable is None:
        return Report(problems, draft.snippet)
    verdict, problem = await reference_run(runnable, sandbox)
    return Report(_in_file_order(problems + ([problem] if problem else [])), draft.snippet, verdict)


def _in_file_order(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.line or 0, p.column or 0))


def _text_or_empty(data: bytes | str) -> str:
    """The text problems quote lines of: none of a file that is too large or not UTF-8."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8") if len(data) <= MAX_BYTES else ""
    except UnicodeDecodeError:
        return ""


def _as_bytes(data: bytes | str) -> bytes:
    # A str from a form goes through the same size and encoding checks as an uploaded file;
    # lone surrogates survive encoding here and are then reported as "not UTF-8".
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data


async def reference_run(snippet: Snippet, sandbox) -> tuple[Verdict | None, Problem | None]:
    """The verdict of setup + reference code + check, and the problem it means, if any."""
    try:
        verdict = await sandbox.run(job_for(snippet, snippet.code))
    except SandboxBusy:
        return None, Problem(None, _("代码运行环境正忙，参考代码没有运行，请稍后重试。"))
    except SandboxUnavailable:
        return None, Problem(None, _("代码运行环境暂时不可用，参考代码没有运行，请稍后重试。"))
    return verdict, verdict_problem(snippet, verdict)


def verdict_problem(snippet: Snippet, verdict: Verdict) -> Problem | None:
    """Anything but `passed` is a problem, placed on the file line the verdict points at."""
    if verdict.passed:
        return None
    if verdict.status == "timeout":
        message = _("参考代码和检查没有在时限内运行完：%(detail)s", detail=verdict.message)
    else:
        message = _(
            "参考代码没有通过自己的检查：%(status)s — %(detail)s",
            status=status_label(verdict.status),
            detail=verdict.message or status_label(verdict.status),
        )
    if verdict.part and verdict.line:
        message += _("（%(part)s 第 %(line)s 行）", part=part_label(verdict.part), line=verdict.line)
    place = file_place(snippet.source, verdict.part, verdict.line, verdict.column)
    return Problem(place.line, message, place.column) if place else Problem(None, message)


def file_line(source: str, part: str | None, line: int | None) -> int | None:
    """The file line of `line` (1-based) of the setup, code or check block of a snippet file."""
    place = file_place(source, part, line)
    return place.line if place else None
