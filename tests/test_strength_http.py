"""Check strength as teachers use it, against a real uvicorn server with the sandbox: the analysis
starts by itself after an upload or edit, is stored per version, and says when it is complete."""

import json
import time
import urllib.error
import urllib.request

import pytest

from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.server

BEARER = {"authorization": f"Bearer {TOKEN}"}
TYPED = '''---
title: Typed
summary: 带类型注解的代码
level: 1
---

```python
from typing import Sequence


def scaled(values: Sequence[float], factor: float = 2.0) -> list[float]:
    """Every value times the factor."""
    if factor == 0:
        raise ValueError("factor must not be 0")
    print("scaling", len(values), "values")
    return [v * factor for v in values]
```

```python check
CHECK
```
'''
WEAK = "assert callable(scaled)"
STRONG = (
    "def verify():\n    assert scaled([1.5, -2.0], 3.0) == [4.5, -6.0]\n    assert scaled([1.0]) == [2.0]\n"
    "    try:\n        scaled([1.0], 0)\n    except ValueError:\n        pass\n    else:\n"
    "        raise AssertionError('0 is refused')\n\n\nverify()"
)


def call(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method=method, headers={**BEARER, "content-type": "text/markdown"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def put(url: str, snippet_id: str, check: str) -> dict:
    status, body = call(f"{url}/api/snippets/{snippet_id}", "PUT", TYPED.replace("CHECK", check).encode())
    assert status in (200, 201), body
    return body["snippet"]


def complete(url: str, snippet_id: str, version: str, timeout: float = 120) -> dict:
    """Polls the API until the version's analysis is complete; progress must only grow."""
    deadline, done = time.monotonic() + timeout, -1
    while time.monotonic() < deadline:
        status, body = call(f"{url}/api/snippets/{snippet_id}/strength?v={version}")
        assert status == 200 and body["version"] == version
        if body["complete"]:
            assert body["state"] == "complete" and body["report"]["complete"]
            return body["report"]
        assert body["state"] in ("running", None) and body["done"] >= done
        done = body["done"]
        time.sleep(0.3)
    raise AssertionError("the analysis did not complete")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from tests.servers import running_server

    with running_server(tmp_path_factory.mktemp("strength"), CODECLOZE_TEACHER_TOKEN=TOKEN) as url:
        yield url


def test_an_upload_is_analysed_without_asking_and_inert_places_get_no_mutants(served):
    first = put(served, "typed", WEAK)
    report = complete(served, "typed", first["version"])  # nothing but the upload started it
    code_lines = TYPED.split("```python\n")[1].split("```")[0].splitlines()
    by_text = {}
    for p in report["positions"]:
        assert p["line_text"] == code_lines[p["line"] - 1]
        assert p["line_text"][p["column"] - 1 :].startswith(p["text"])
        by_text.setdefault(p["text"], []).append(p)
    # Annotations, the docstring and the message strings are no positions, so none of their mutants count.
    assert not {
        "float",
        "list",
        '"""Every value times the factor."""',
        '"factor must not be 0"',
        '"scaling"',
        '"values"',
    } & set(by_text)
    assert [p["line_text"] for p in by_text["Sequence"]] == ["from typing import Sequence"]  # imported, not annotated
    counted = {m["line"] for m in report["survivors"]} | {p["line"] for p in report["positions"]}
    assert all(not code_lines[line - 1].lstrip().startswith('"""') for line in counted)
    assert report["counts"]["blind"] > 0 and report["survivors"]  # `callable(scaled)` tells nothing
    assert "scaled" in by_text and "factor" in by_text and "2.0" in by_text


def test_a_check_only_edit_reruns_exactly_the_same_mutants(served):
    weak = put(served, "same-mutants", WEAK)
    before = complete(served, "same-mutants", weak["version"])
    strong = put(served, "same-mutants", STRONG)
    assert strong["version"] != weak["version"]
    after = complete(served, "same-mutants", strong["version"])

    def mutants(report):
        return [
            (p["index"], p["line"], p["column"], p["text"], [m["replacement"] for m in p["mutants"]])
            for p in report["positions"]
        ]

    assert mutants(before) == mutants(after) and sum(len(m[4]) for m in mutants(after)) > 20
    # What the strong check lets through only looks equivalent (the `print` line): a hint, still a survivor.
    assert len(after["survivors"]) < len(before["survivors"])
    assert all(m["likely_equivalent"] and m["line_text"].lstrip().startswith("print(") for m in after["survivors"])
    assert after["counts"]["caught"] > before["counts"]["caught"]
    # The first version's report is kept as it was.
    assert complete(served, "same-mutants", weak["version"]) == before


def test_the_teacher_page_shows_the_heatmap_and_every_weak_place(served):
    version = put(served, "page-heat", WEAK)["version"]
    complete(served, "page-heat", version)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(f"{served}/teach/login?token={TOKEN}", timeout=30)
    html = opener.open(f"{served}/teach/snippets/page-heat/strength", timeout=30).read().decode()
    assert 'class="heatmap strength-heatmap"' in html and 'class="tok h5"' in html
    assert "这些地方的错误没有被检查发现" in html and "return [v * factor for v in values]" in html
    assert "个位置：抓住" in html and "没有抓住的位置（弱、盲、未测）" in html
