"""Snippet file text → Snippet, or SnippetInvalid listing every problem with its line."""

import hashlib
import re
import tokenize
from dataclasses import dataclass

from ..engine.tokens import candidate_spans
from ..i18n import _
from .cloze import strip_cloze
from .errors import Problem, SnippetInvalid
from .frontmatter import clean_meta, key_lines, load_meta, split_front_matter
from .model import Question, Segment, Snippet
from .newer_syntax import newer_form, running
from .places import marked_column
from .sections import ANSWER_HEADINGS, list_items, reserved_kind, structure

SNIPPET_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def version_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Draft:
    """A file as far as it parses: every problem; the snippet when there is none; and, whatever
    else is wrong, a stand-in holding its setup, code and check when those compile, so that its
    imports can be checked and its reference run in the same pass."""

    problems: list[Problem]
    snippet: Snippet | None
    runnable: Snippet | None


def parse_snippet(text: str, snippet_id: str, path: str = "<upload>") -> Snippet:
    draft = parse_draft(text, snippet_id)
    if draft.snippet is None:
        raise SnippetInvalid(path, draft.problems)
    return draft.snippet


def parse_draft(text: str, snippet_id: str) -> Draft:
    problems: list[Problem] = []
    if not SNIPPET_ID.match(snippet_id):
        problems.append(Problem(None, _("id %(id)r 必须由 1–64 个小写字母、数字或 '-' 组成", id=snippet_id), field="id"))
    plain = text.removeprefix("\ufeff").replace("\r\n", "\n")
    split = split_front_matter(plain)
    meta: dict = {}
    if split is None:  # the body is still read: its problems are listed too
        problems.append(Problem(1, _("文件必须以 '---' 包围的 front matter 开头")))
        body, offset = plain, 0
    else:
        raw_meta, body, offset = split
        loaded = load_meta(raw_meta, problems)
        meta = clean_meta(loaded, problems, key_lines(raw_meta)) if loaded is not None else {}
    code_problems: list[Problem] = []
    parts = _body_parts(body, offset, problems, code_problems)
    runnable = not code_problems and parts["code"] and parts["check"]
    problems += code_problems
    problems.sort(key=lambda p: (p.line or 0, p.column or 0))
    stand_in = {"title": "", "summary": "", "level": "1", **meta} if problems else meta
    snippet = Snippet(id=snippet_id, version=version_of(text), source=text, **stand_in, **parts)
    return Draft(problems, None if problems else snippet, snippet if runnable else None)


def _body_parts(body: str, offset: int, problems: list[Problem], code_problems: list[Problem]) -> dict:
    """The code blocks (their problems, which keep the code from running, in `code_problems`),
    the prose and the sections."""
    lines = body.split("\n")
    fences, headings = structure(body)
    section_starts = [h for h in headings if h.level == 2 and reserved_kind(h.text)]
    end_of_body = section_starts[0].line if section_starts else len(lines)
    fences = [f for f in fences if f.last <= end_of_body]
    code = _code_parts(fences, offset, code_problems)
    segments = _segments(lines[:end_of_body], fences, code)
    return {**code, "segments": segments, **_sections(lines, headings, end_of_body, offset, problems)}


def _code_parts(fences, offset: int, problems: list[Problem]) -> dict:
    out: dict = {"setup": "", "code": "", "check": "", "blanks": ()}
    for kind, need in (("code", _("恰好一个")), ("setup", _("至多一个")), ("check", _("恰好一个"))):
        found = [f for f in fences if f.kind == kind]
        info = "python" if kind == "code" else f"python {kind}"
        if len(found) > 1 or (not found and kind != "setup"):
            problems.append(
                Problem(
                    found[1].first + offset + 1 if len(found) > 1 else None,
                    _("需要%(need)s ```%(info)s 代码块，实际有 %(n)s 个", need=need, info=info, n=len(found)),
                )
            )
        if not found:
            continue
        fence = found[0]
        first_line = fence.first + offset + 2  # file line of the block's first code line
        source = fence.content
        if kind == "code":
            source, out["blanks"], bad = strip_cloze(source)
            problems.extend(Problem(first_line + ln - 1, msg) for ln, msg in bad)
            if not bad and eligible_spans_or_none(source) == ():
                problems.append(Problem(first_line, _("练习代码里没有可以挖空的 token")))
        _compiles(source, info, first_line, problems, fence.content if kind == "code" else None)
        out[kind] = source
    return out


def eligible_spans_or_none(code: str):
    """Tokens of any kind (punctuation too): a drill needs something a learner can choose to mask."""
    try:
        return candidate_spans(code)
    except (SyntaxError, ValueError, tokenize.TokenError):
        return None  # reported by _compiles


def _compiles(source: str, info: str, first_line: int, problems: list[Problem], marked: str | None = None) -> None:
    try:
        compile(source, info, "exec", dont_inherit=True)
    except SyntaxError as err:
        problems.append(_syntax_problem(err, source, info, first_line, marked))
    except ValueError as err:  # e.g. null bytes
        problems.append(Problem(first_line, _("```%(info)s 代码块有语法错误：%(err)s", info=info, err=err)))


def _syntax_problem(err: SyntaxError, source: str, info: str, first_line: int, marked: str | None) -> Problem:
    """At the file line and column; newer syntax says which Python would accept it."""
    number = err.lineno or 1
    lines = source.split("\n")
    text = lines[number - 1] if 0 < number <= len(lines) else ""
    column = err.offset if err.offset and err.offset > 0 else None
    if column and marked is not None:
        marked_lines = marked.split("\n")
        column = marked_column(marked_lines[number - 1], column) if number <= len(marked_lines) else column
    message = _("```%(info)s 代码块有语法错误：%(err)s", info=info, err=err.msg)
    if (newer := newer_form(text)) is not None:
        message = _(
            "这台服务器运行 Python %(running)s；`%(form)s` 需要 Python %(needs)s（%(err)s）",
            running=running(),
            form=newer[0],
            needs=newer[1],
            err=message,
        )
    return Problem(first_line + number - 1, message, column)


def _segments(lines: list[str], fences, code: dict) -> tuple[Segment, ...]:
    out, pos = [], 0
    for fence in fences:
        out.append(Segment("prose", "\n".join(lines[pos : fence.first]).strip()))
        out.append(Segment(fence.kind, code[fence.kind]))
        pos = fence.last
    out.append(Segment("prose", "\n".join(lines[pos:]).strip()))
    return tuple(s for s in out if s.text or s.kind != "prose")


def _sections(lines, headings, start: int, offset: int, problems: list[Problem]) -> dict:
    h2 = [h for h in headings if h.level == 2 and h.line >= start]
    out: dict = {"hints": (), "answers": "", "explanation": "", "questions": ()}
    questions = []
    for i, head in enumerate(h2):
        end = h2[i + 1].line if i + 1 < len(h2) else len(lines)
        text = "\n".join(lines[head.line + 1 : end]).strip()
        kind = reserved_kind(head.text)
        if kind is None:
            problems.append(
                Problem(
                    head.line + offset + 1,
                    _(
                        "保留小节之后出现了未知的小节 '## %(text)s'（保留小节：提示/Hints、参考答案/Reference answers、解析/Explanation、问题/Question）",
                        text=head.text,
                    ),
                )
            )
        elif kind == "hints":
            out["hints"] = tuple(list_items(text)) or (text,)
        elif kind == "question":
            questions.append(_question(head, lines[head.line + 1 : end], offset, problems))
        else:
            out[kind] = text
    out["questions"] = tuple(q for q in questions if q)
    return out


def _question(head, lines: list[str], offset: int, problems: list[Problem]) -> Question | None:
    for i, line in enumerate(lines):
        if line.startswith("### ") and line[4:].strip().lower().startswith(ANSWER_HEADINGS):
            prompt, answer = "\n".join(lines[:i]).strip(), "\n".join(lines[i + 1 :]).strip()
            if prompt and answer:
                return Question(head.text.strip(), prompt, answer)
    problems.append(
        Problem(head.line + offset + 1, _("问题 '%(text)s' 需要题目，然后是 '### 参考答案' 和参考答案", text=head.text))
    )
    return None
