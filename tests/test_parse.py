from pathlib import Path

import pytest

from app.main import create_app
from app.settings import Settings
from app.snippets.errors import SnippetInvalid
from app.snippets.files import decode
from app.snippets.library import SnippetLibrary
from app.snippets.parse import parse_snippet
from app.snippets.places import file_line_of
from app.snippets.validate import file_line
from tests.servers import SNIPPETS

pytestmark = pytest.mark.app

GOOD = """---
title: T
summary: S
level: 2
tags: [a]
---

Prose with $x^2$.

```python setup
import math
```

```python
y = {{c1::math.sqrt(4)::平方根}} + {{c2::1}}
```

```python check
assert y == 3.0, "y 不对"
```

## 提示

- first hint
- second hint
  continued

## 解析

why

## 问题 1

Q?

### 参考答案

A.
"""


def problems(text: str, snippet_id: str = "t") -> list[str]:
    with pytest.raises(SnippetInvalid) as err:
        parse_snippet(text, snippet_id, "t.md")
    return [str(p) for p in err.value.problems]


def test_parses_every_part():
    s = parse_snippet(GOOD, "t")
    assert s.code == "y = math.sqrt(4) + 1\n"
    assert [(b.group, b.answer, b.hint) for b in s.blanks] == [(1, "math.sqrt(4)", "平方根"), (2, "1", None)]
    assert s.code[s.blanks[0].start : s.blanks[0].end] == "math.sqrt(4)"
    assert [seg.kind for seg in s.segments] == ["prose", "setup", "code", "check"]
    assert s.hints == ("first hint", "second hint\ncontinued")
    assert s.explanation == "why"
    assert [(q.label, q.prompt, q.answer) for q in s.questions] == [("问题 1", "Q?", "A.")]
    assert s.is_exercise and s.level_key == (2, 2)


def test_version_is_a_content_hash():
    assert parse_snippet(GOOD, "t").version == parse_snippet(GOOD, "t").version
    assert parse_snippet(GOOD, "t").version != parse_snippet(GOOD + "\n", "t").version


def test_reports_every_problem_with_its_line():
    bad = (
        GOOD.replace("title: T\n", "")
        .replace("level: 2", "level: 7")
        .replace("{{c2::1}}", "{{c2::1")
        .replace("assert y", "assert y ==")
    )
    found = problems(bad)
    assert "第 1 行：front matter 缺少非空的 'title'" in found
    assert any("'level' 必须是" in p for p in found)
    assert "第 14 行：挖空标记格式不对：应为同一行内的 {{cN::答案}} 或 {{cN::答案::提示}}" in found
    assert any(p.startswith("第 18 行第 13 列：```python check 代码块有语法错误") for p in found)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda t: t.replace("---\ntitle", "title", 1), "开头"),
        (lambda t: t.replace("```python check", "```text"), "需要恰好一个 ```python check 代码块，实际有 0 个"),
        (
            lambda t: t.replace("```python\ny", "```python\ny = 1\n```\n\n```python\ny"),
            "需要恰好一个 ```python 代码块，实际有 2 个",
        ),
        (lambda t: t.replace("level: 2", "level: [1"), "不是合法的 YAML"),
        (lambda t: t.replace("tags: [a]", "tags: [a]\ncolour: red"), "未知的 front matter 键 'colour'"),
        (lambda t: t.replace("### 参考答案\n\nA.", ""), "需要题目，然后是 '### 参考答案'"),
        (lambda t: t + "\n## Appendix\n\nmore\n", "未知的小节 '## Appendix'"),
        (
            lambda t: t.replace("y = {{c1::math.sqrt(4)::平方根}} + {{c2::1}}", "# only a comment"),
            "没有可以挖空的 token",
        ),
        (lambda t: t.replace("+ {{c2::1}}", "+ max(1,"), "```python 代码块有语法错误"),
    ],
)
def test_malformed_files_say_what_is_wrong(mutate, message):
    assert any(message in p for p in problems(mutate(GOOD)))


def test_rejects_path_like_ids():
    assert any("必须由 1–64 个小写字母" in p for p in problems(GOOD, "../etc"))


def test_decode_rejects_binary_and_other_encodings():
    with pytest.raises(SnippetInvalid, match="二进制"):
        decode(b"\x00\x01", "x.md")
    with pytest.raises(SnippetInvalid, match="第 2 行：文件不是 UTF-8"):
        decode("a\n\u00e9".encode("latin-1"), "x.md")
    assert decode("\ufeffa\r\nb".encode("utf-8"), "x.md") == "\ufeffa\r\nb"  # kept for download


def test_crlf_and_bom_files_parse_like_plain_ones():
    windows = "\ufeff" + GOOD.replace("\n", "\r\n")
    assert parse_snippet(windows, "t").code == parse_snippet(GOOD, "t").code
    assert parse_snippet(windows, "t").source == windows


def test_start_up_fails_on_a_malformed_file_with_path_and_line(snippets_dir: Path, tmp_path: Path):
    (snippets_dir / "broken.md").write_text(GOOD.replace("{{c2::1}}", "{{c2::1"), encoding="utf-8")
    with pytest.raises(SnippetInvalid) as err:
        create_app(Settings(data_dir=tmp_path / "d", snippets_dir=snippets_dir, execution=False))
    assert f"{snippets_dir / 'broken.md'}: 第 15 行：挖空标记格式不对" in str(err.value)


def test_earlier_versions_come_back_from_the_archive(tmp_path: Path):
    from app.db.snippet_rows import SnippetRows
    from app.db.store import Store

    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    first = SnippetLibrary(SnippetRows(Store(url).engine))
    old = parse_snippet(GOOD, "t")
    first.add(old)
    first.add(parse_snippet(GOOD.replace("summary: S", "summary: S2"), "t"))
    restarted = SnippetLibrary(SnippetRows(Store(url).engine))
    restarted.add(parse_snippet(GOOD.replace("summary: S", "summary: S3"), "t"))
    assert restarted.get("t", old.version).summary == "S"
    assert restarted.get("t").summary == "S3"
    assert restarted.get("t", "0" * 12) is None
    assert restarted.get("../t", old.version) is None


def test_bundled_snippets_all_parse():
    library = SnippetLibrary()
    library._current = {}
    from app.settings import PROJECT_DIR

    ids = sorted(p.stem for p in (PROJECT_DIR / "snippets").glob("[!_]*.md"))
    assert len(ids) == 8
    for snippet_id in ids:
        text = (PROJECT_DIR / "snippets" / f"{snippet_id}.md").read_text(encoding="utf-8")
        assert parse_snippet(text, snippet_id).code


def test_the_documented_example_is_a_valid_exercise():
    from app.settings import PROJECT_DIR

    page = (PROJECT_DIR / "docs" / "teachers.md").read_text(encoding="utf-8")
    example = page.split("````markdown\n")[1].split("\n````")[0]
    snippet = parse_snippet(example, "safe-softmax")
    assert len(snippet.blanks) == 2 and snippet.hints and snippet.explanation and snippet.questions
    assert snippet.answers.startswith("```text")


def test_newer_syntax_names_the_servers_python_and_the_release_that_accepts_it():
    newer = GOOD.replace("```python check\n", "```python check\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n")
    found = problems(newer)
    line = next(p for p in found if "Python" in p)
    assert line.startswith("第 19 行第 10 列：这台服务器运行 Python 3.11；`def f[T]()` 需要 Python 3.12")


def test_a_syntax_error_in_marked_code_has_the_files_column():
    """The column counts the cloze markers the file has on that line."""
    bad = GOOD.replace("{{c2::1}}", "{{c2::1}} +")
    found = problems(bad)
    assert "第 15 行第 44 列：```python 代码块有语法错误：invalid syntax" in found, found


def test_a_reports_file_lines_are_those_of_one_line_at_a_time():
    """file_line_of parses the file once for a whole report; each line lands where file_line puts it."""
    for path in sorted(SNIPPETS.glob("[!_]*.md")):
        source = path.read_text(encoding="utf-8")
        snippet = parse_snippet(source, path.stem)
        many = file_line_of(source)
        for part, block in (("setup", snippet.setup), ("code", snippet.code), ("check", snippet.check)):
            lines = range(1, (block or "").count("\n") + 2)
            assert [many(part, n) for n in lines] == [file_line(source, part, n) for n in lines], (path.name, part)
        assert many("code", 1) > 1 and many("code", None) is None and many("nowhere", 3) is None
