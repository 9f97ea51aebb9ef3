"""A teacher's real code through a real uvicorn server: packages the sandbox offers, imports it
does not, newer syntax, survivors at one file place everywhere, and a draft's preview by token."""

import re
import subprocess
import sys
import time

import httpx
import pytest

from app.learn.drills import random_drill
from app.snippets.parse import parse_snippet
from tests.site_client import own_site
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
BEARER = {"authorization": f"Bearer {TOKEN}"}
JSON = {"accept": "application/json"}

EINOPS = """---
title: 多头注意力的 rearrange
summary: einops 拆分和合并多个头
level: 2
---

```python setup
import torch
x = torch.randn(2, 5, 8)
```

```python
from einops import rearrange

def split_heads(t, heads):
    return rearrange(t, "b n (h d) -> b h n d", h=heads)
```

```python check
y = split_heads(x, 2)
assert y.shape == (2, 2, 5, 4), "形状不对"
assert torch.equal(y[:, 1], x[:, :, 4:]), "第二个头不对"
```
"""

WEAK = """---
title: Norm
summary: a check too weak to tell
level: 1
---

```python
import math

def norm(x, y):
    return math.sqrt(x * x + y * y)
```

```python check
assert norm(3, 4) > 0, "norm must be positive"
```
"""


def put(url: str, snippet_id: str, text: str) -> httpx.Response:
    return httpx.put(f"{url}/api/snippets/{snippet_id}", content=text.encode(), headers=BEARER, timeout=120)


def test_an_einops_snippet_uploads_and_drills(teacher_server):
    url = teacher_server
    made = put(url, "einops-heads", EINOPS)
    assert made.status_code == 201, made.text
    assert made.json()["verdict"]["status"] == "passed"
    assert httpx.post(f"{url}/api/snippets/einops-heads/publish", headers=BEARER).status_code == 200
    snippet = parse_snippet(EINOPS, "einops-heads")
    drill = random_drill(snippet, 30, 4)
    form = {"version": snippet.version, "rate": "30", "seed": "4", **{h.key: h.answer for h in drill.holes}}
    with httpx.Client(base_url=url, timeout=60, headers=own_site(url)) as learner:
        assert learner.get("/s/einops-heads/drill?rate=30&seed=4").status_code == 200
        scored = learner.post("/s/einops-heads/drill", data=form, headers=JSON).json()["result"]
    assert scored.get("correct") == scored.get("total") == len(drill.holes), scored
    assert scored["run"]["status"] == "passed", scored["run"]
    health = httpx.get(f"{url}/healthz").json()
    offered = {p["name"]: p["named"] for p in health["sandbox_packages"]}
    assert offered["einops"] and offered["torch"] and offered["numpy"] and offered["sympy"] is False
    assert "fastapi" not in offered


def test_an_import_the_sandbox_does_not_offer_is_refused_with_the_package_and_the_setting(teacher_server):
    text = EINOPS.replace("from einops import rearrange", "from einops import rearrange\nimport fastapi")
    refused = put(teacher_server, "imports-fastapi", text)
    assert refused.status_code == 422
    problems = refused.json()["problems"]
    assert len(problems) == 1 and "fastapi" in problems[0]["message"]
    assert "CODECLOZE_SANDBOX_PACKAGES" in problems[0]["message"] and "einops" in problems[0]["message"]
    assert (
        problems[0]["text"] == "import fastapi" and problems[0]["line"] == text.split("\n").index("import fastapi") + 1
    )
    english = httpx.put(
        f"{teacher_server}/api/snippets/imports-fastapi?lang=en", content=text.encode(), headers=BEARER, timeout=60
    ).json()["problems"][0]["message"]
    assert english.startswith("The code imports fastapi") and "CODECLOZE_SANDBOX_PACKAGES" in english
    assert httpx.get(f"{teacher_server}/api/snippets/imports-fastapi", headers=BEARER).status_code == 404


def test_a_python_312_file_gets_the_version_message_at_its_file_place(teacher_server):
    text = WEAK.replace("def norm(x, y):", "def norm[T](x: T, y: T) -> T:")
    refused = put(teacher_server, "generic-norm", text)
    assert refused.status_code == 422
    (problem,) = refused.json()["problems"]
    assert problem["message"].startswith("这台服务器运行 Python 3.11；`def f[T]()` 需要 Python 3.12")
    assert problem["line"] == text.split("\n").index("def norm[T](x: T, y: T) -> T:") + 1
    assert problem["text"] == "def norm[T](x: T, y: T) -> T:" and problem["column"] == 9
    page = teacher_page(teacher_server)
    form = page.post("/teach/new", data={"csrf": csrf(page), "id": "generic-norm", "text": text})
    assert form.status_code == 422 and "`def f[T]()` 需要 Python 3.12" in form.text
    assert f"第 {problem['line']} 行第 9 列" in form.text and "def norm[T](x: T, y: T) -&gt; T:" in form.text


def test_a_failing_reference_run_is_placed_at_its_file_line_and_column(teacher_server, tmp_path):
    """The sandbox reports where the failing expression starts; the API, the page and the CLI give
    that file line, its column (past the cloze markers of the line) and the line's text."""
    line_text = "    return math.sqrt(x * x + {{c1::y * y}}) + undefined_name"
    text = WEAK.replace("    return math.sqrt(x * x + y * y)", line_text).replace(
        "```python check", "```python check\nnorm(3, 4)"
    )
    refused = put(teacher_server, "failing-norm", text)
    assert refused.status_code == 422
    (problem,) = refused.json()["problems"]
    assert "NameError" in problem["message"]
    assert problem["line"] == text.split("\n").index(line_text) + 1 and problem["text"] == line_text
    assert problem["column"] == line_text.index("undefined_name") + 1
    page = teacher_page(teacher_server)
    form = page.post("/teach/new", data={"csrf": csrf(page), "id": "failing-norm", "text": text})
    assert form.status_code == 422 and f"第 {problem['line']} 行第 {problem['column']} 列" in form.text
    path = tmp_path / "failing-norm.md"
    path.write_text(text)
    cli = subprocess.run(
        [sys.executable, "-m", "app.snippets", "check", str(path)], capture_output=True, text=True, timeout=300
    )
    assert f"{path}:{problem['line']}:{problem['column']}: " in cli.stdout, cli.stdout + cli.stderr


def teacher_page(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=120, headers=own_site(url))
    assert client.get(f"/teach/login?token={TOKEN}").status_code in (200, 303)
    return client


def csrf(client: httpx.Client) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get("/teach").text).group(1)


def test_the_same_survivor_has_the_same_file_place_in_the_api_the_page_and_the_cli(teacher_server, tmp_path):
    saved = put(teacher_server, "weak-norm", WEAK)
    assert saved.status_code == 201
    version = saved.json()["snippet"]["version"]
    report = analysed(teacher_server, "weak-norm", version)
    from_api = {(s["file_line"], s["column"], s["original"], s["replacement"]) for s in report["survivors"]}
    assert from_api
    lines = WEAK.split("\n")
    assert all(lines[s["file_line"] - 1] == s["line_text"] for s in report["survivors"])
    assert {line for line, *_r in from_api} <= {
        lines.index("import math") + 1,
        lines.index("    return math.sqrt(x * x + y * y)") + 1,
    }

    page = teacher_page(teacher_server)
    html = page.get("/teach/snippets/weak-norm/strength").text
    rows = re.findall(
        r"<tr><td>(\d+)</td><td>(\d+)</td><td><code>(.*?)</code></td><td><code>(.*?)</code></td>"
        r'<td><code>(.*?)</code></td>\s*<td class="hints">',
        html,
    )
    unescape = lambda t: (
        t.replace("&#34;", '"').replace("&#39;", "'").replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")
    )
    from_page = {(int(a), int(b), unescape(o), unescape(r)) for a, b, o, r, _t in rows}
    assert from_page == from_api

    path = tmp_path / "weak-norm.md"
    path.write_text(WEAK)
    done = subprocess.run(
        [sys.executable, "-m", "app.snippets", "check", "--strength", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = re.findall(rf"^{re.escape(str(path))}:(\d+):(\d+): mutant '(.*)' → '(.*)' survives: ", done.stdout, re.M)
    assert {(int(a), int(b), o, r) for a, b, o, r in found} == from_api, done.stdout


def analysed(url: str, snippet_id: str, version: str, timeout: float = 300) -> dict:
    """The version's check-strength report once its background analysis is complete."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = httpx.get(f"{url}/api/snippets/{snippet_id}/strength?v={version}", headers=BEARER, timeout=30).json()
        if body["complete"]:
            return body["report"]
        time.sleep(0.5)
    raise AssertionError("the analysis did not complete")


def test_a_drafts_drill_answers_json_to_the_teachers_bearer_token(teacher_server):
    assert put(teacher_server, "draft-norm", WEAK).status_code == 201
    address = f"{teacher_server}/s/draft-norm/drill?rate=30&seed=2"
    assert httpx.get(address, headers=JSON).status_code == 404  # learners never see a draft
    assert httpx.get(address, headers={**JSON, "authorization": "Bearer wrong"}).status_code == 404
    shown = httpx.get(address, headers={**JSON, **BEARER})
    assert shown.status_code == 200 and shown.headers["content-type"].startswith("application/json")
    body = shown.json()
    assert body["snippet"] == "draft-norm" and body["mode"] == "random" and body["rate"] == 30
    exercise = httpx.get(f"{teacher_server}/s/draft-norm", headers={**JSON, **BEARER}, follow_redirects=True)
    assert exercise.status_code == 200 and "draft-norm" in exercise.text


def test_every_independent_problem_of_a_file_comes_in_one_pass(teacher_server, tmp_path):
    """A bad front matter does not hide a failing reference run, nor an import the sandbox refuses;
    each problem is at its own file line, and YAML's own words come with the usual fix."""
    unquoted = WEAK.replace("summary: a check too weak to tell", "summary: 比较: 两种写法").replace(
        'assert norm(3, 4) > 0, "norm must be positive"', 'assert norm(3, 4) == 6, "norm is 5"'
    )
    refused = put(teacher_server, "one-pass", unquoted)
    assert refused.status_code == 422
    yaml_problem, run_problem = refused.json()["problems"]
    lines = unquoted.split("\n")
    assert yaml_problem["line"] == lines.index("summary: 比较: 两种写法") + 1
    assert (
        "请把整个值用引号括起来" in yaml_problem["message"]
        and "mapping values are not allowed" in yaml_problem["message"]
    )
    assert run_problem["line"] == lines.index('assert norm(3, 4) == 6, "norm is 5"') + 1
    assert "norm is 5" in run_problem["message"]
    english = httpx.put(
        f"{teacher_server}/api/snippets/one-pass?lang=en", content=unquoted.encode(), headers=BEARER, timeout=120
    ).json()["problems"][0]["message"]
    assert "quotes" in english

    three = WEAK.replace("level: 1", "level: 7").replace("import math", "import math\nimport fastapi")
    three += "\n## 提示\n\n- 想想勾股定理\n\n## 附录\n\n多余的小节\n"
    refused = put(teacher_server, "three-problems", three)
    lines = three.split("\n")
    found = [(p["line"], p["message"]) for p in refused.json()["problems"]]
    assert [line for line, _m in found] == [
        lines.index("level: 7") + 1,
        lines.index("import fastapi") + 1,
        lines.index("## 附录") + 1,
    ], found
    path = tmp_path / "three-problems.md"
    path.write_text(three)
    cli = subprocess.run(
        [sys.executable, "-m", "app.snippets", "check", "--no-run", str(path)], capture_output=True, text=True
    )
    assert [int(m) for m in re.findall(rf"^{re.escape(str(path))}:(\d+)[:\d]*: ", cli.stdout, re.M)] == [
        line for line, _m in found
    ], cli.stdout
