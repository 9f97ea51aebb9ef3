"""A course at once through a real uvicorn server and the `codecloze import` CLI against the
same database: every problem of every file, all or nothing, and the home page in the order of
the course's `_index.md`. Hostile archives are refused whole."""

import io
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from app.settings import PROJECT_DIR
from tests.servers import running_server
from tests.teach_helpers import TOKEN

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::ResourceWarning")]
BEARER = {"authorization": f"Bearer {TOKEN}"}
BUNDLED = sorted(p.stem for p in (PROJECT_DIR / "snippets").glob("*.md") if not p.name.startswith("_"))
# The teacher's order, not the home page's by-level one: drills first, then the exercises backwards.
ORDER = [i for i in BUNDLED if i.startswith("mlm-")] + sorted((i for i in BUNDLED if i.startswith("ex")), reverse=True)
INDEX = f"""---
title: 导入的课程
sections:
  - title: 先练随机挖空
    snippets: [{", ".join(ORDER[:3])}]
  - title: 再做固定填空
    snippets: [{", ".join(ORDER[3:])}]
---

这门课由一个文件夹导入。
"""
BROKEN = """---
title: 坏文件
summary: 两处问题
level: 9
---

```python
def f(x):
    return x +
```

```python check
assert f(1) == 2
```
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """A served app with no bundled snippets (the course brings them), its data dir and a folder."""
    root = tmp_path_factory.mktemp("course")
    empty, folder, data = root / "bundled", root / "folder", root / "data"
    empty.mkdir()
    folder.mkdir()
    for name in BUNDLED:
        shutil.copy(PROJECT_DIR / "snippets" / f"{name}.md", folder)
    (folder / "_index.md").write_text(INDEX)
    (folder / "broken.md").write_text(BROKEN)
    env = {"CODECLOZE_TEACHER_TOKEN": TOKEN, "CODECLOZE_SNIPPETS_DIR": str(empty), "CODECLOZE_SYNC_SECONDS": "0.2"}
    with running_server(data, **env) as url:
        yield {"url": url, "folder": folder, "data": data, "env": env}


def zipped(folder: Path, extra: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.glob("*.md")):
            archive.write(path, f"course/{path.name}")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def tarred(folder: Path) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for path in sorted(folder.glob("*.md")):
            archive.add(path, path.name)
    return out.getvalue()


def post(url: str, data: bytes, query: str = "", kind: str = "application/zip") -> httpx.Response:
    return httpx.post(f"{url}/api/import{query}", content=data, headers={**BEARER, "content-type": kind}, timeout=600)


def uploaded(url: str) -> list[str]:
    return [s["id"] for s in httpx.get(f"{url}/api/snippets", headers=BEARER).json()]


def cli(course: dict, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **course["env"], "CODECLOZE_DATA_DIR": str(course["data"])}
    return subprocess.run(
        [sys.executable, "-m", "app.teach.cli", "import", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        cwd=PROJECT_DIR,
    )


def test_an_archive_with_one_broken_file_saves_nothing_and_lists_its_problems(course):
    refused = post(course["url"], zipped(course["folder"]))
    assert refused.status_code == 422
    body = refused.json()
    assert body["saved"] is False and "snippets" not in body
    files = {f["file"]: f for f in body["files"]}
    assert set(files) == {f"{i}.md" for i in BUNDLED} | {"broken.md", "_index.md"}
    assert all(files[f"{i}.md"]["ok"] for i in BUNDLED) and files["_index.md"]["ok"]
    problems = files["broken.md"]["problems"]
    lines = BROKEN.split("\n")
    assert [p["line"] for p in problems] == [lines.index("level: 9") + 1, lines.index("    return x +") + 1]
    assert "'level'" in problems[0]["message"] and problems[1]["text"] == "    return x +"
    assert uploaded(course["url"]) == []


def test_the_cli_with_the_broken_file_saves_nothing_and_prints_its_problems(course):
    done = cli(course, str(course["folder"]))
    assert done.returncode == 1, done.stderr
    broken = str(course["folder"] / "broken.md")
    out = done.stdout.splitlines()
    assert out[0].startswith(f"{broken}:4: ") and "'level'" in out[0]  # at its own line
    assert any(line.startswith(f"{broken}:{BROKEN.split(chr(10)).index('    return x +') + 1}:") for line in out)
    assert out[-1].endswith("nothing saved")
    assert uploaded(course["url"]) == []


def test_the_cli_refuses_a_folder_with_a_symbolic_link_and_reads_nothing_it_points_to(course, tmp_path):
    folder = tmp_path / "linked"
    folder.mkdir()
    (folder / "fresh-one.md").write_text((PROJECT_DIR / "snippets" / "mlm-online-softmax.md").read_text())
    secret = tmp_path / "secret.txt"
    secret.write_text("first line of a file outside the course\n")
    (folder / "link.md").symlink_to(secret)
    before = uploaded(course["url"])
    done = cli(course, str(folder))
    assert done.returncode == 2 and "link.md" in done.stderr and "符号链接" in done.stderr, done.stderr
    assert "outside the course" not in done.stdout + done.stderr
    assert uploaded(course["url"]) == before


def test_without_the_broken_file_the_cli_saves_all_and_the_home_page_follows_the_index(course):
    (course["folder"] / "broken.md").unlink()
    done = cli(course, str(course["folder"]), "--publish", "--home")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{course['folder']}: {len(BUNDLED)} snippet(s), saved"
    assert f"{course['folder'] / BUNDLED[0]}.md: new" in done.stdout.splitlines()
    home = f"{course['folder'] / '_index.md'}: home page changed: title 'codecloze' -> '导入的课程', intro, sections"
    assert home in done.stdout.splitlines()
    deadline = time.monotonic() + 20
    while sorted(uploaded(course["url"])) != BUNDLED:  # the server takes what the CLI committed
        assert time.monotonic() < deadline
        time.sleep(0.2)
    home = httpx.get(course["url"] + "/", headers={"accept": "application/json"}).json()
    assert [s["id"] for s in home] == ORDER
    assert [s["section"] for s in home] == ["先练随机挖空"] * 3 + ["再做固定填空"] * (len(ORDER) - 3)
    html = httpx.get(course["url"] + "/").text
    assert "导入的课程" in html and "这门课由一个文件夹导入。" in html
    assert html.index("先练随机挖空") < html.index("再做固定填空")
    positions = [html.index(f'href="/s/{i}') for i in ORDER]
    assert positions == sorted(positions)


def test_a_tar_import_through_the_api_saves_drafts_in_one_go(course, tmp_path):
    folder = tmp_path / "more"
    folder.mkdir()
    for name in ("mlm-online-softmax", "ex2-online-softmax"):
        text = (PROJECT_DIR / "snippets" / f"{name}.md").read_text()
        (folder / f"copy-{name}.md").write_text(text)
    made = post(course["url"], tarred(folder), kind="application/gzip")
    assert made.status_code == 201, made.text
    assert made.json()["saved"] and made.json()["snippets"] == ["copy-ex2-online-softmax", "copy-mlm-online-softmax"]
    assert made.json()["changes"] == {"copy-ex2-online-softmax": "new", "copy-mlm-online-softmax": "new"}
    listed = {s["id"]: s["status"] for s in httpx.get(f"{course['url']}/api/snippets", headers=BEARER).json()}
    assert listed["copy-ex2-online-softmax"] == listed["copy-mlm-online-softmax"] == "draft"
    edited = folder / "copy-ex2-online-softmax.md"
    edited.write_text(edited.read_text().replace("level: 2", "level: 3", 1))
    again = post(course["url"], tarred(folder), kind="application/gzip")  # each snippet says what the import did
    assert again.status_code == 201, again.text
    assert again.json()["changes"] == {"copy-ex2-online-softmax": "changed", "copy-mlm-online-softmax": "unchanged"}


def bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("huge.md", b"a" * (200 << 20))  # 200 MB of one letter: a few hundred KB zipped
    return out.getvalue()


def zip_of(*infos: tuple[zipfile.ZipInfo, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in infos:
            archive.writestr(info, data)
    return out.getvalue()


def utf8_flagged_name_that_is_not_utf8() -> bytes:
    # A name beyond ASCII gets the "this name is UTF-8" flag; then its bytes are made not UTF-8.
    return zip_of((zipfile.ZipInfo("\xe9-zz.md"), b"---\n")).replace("\xe9-zz.md".encode(), b"\xff\xfe-zz.md")


def zip_symlink() -> bytes:
    info = zipfile.ZipInfo("course/link.md")
    info.external_attr = (0o120777) << 16  # S_IFLNK: the member is a link to its content's path
    return zip_of((info, b"/etc/passwd"))


def latin1_tar(folder: Path) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT, encoding="latin-1") as archive:
        archive.add(folder / "fresh-one.md", "\xe9t\xe9.md")
    return out.getvalue()


def damaged(data: bytes) -> bytes:
    """The stream's middle overwritten: its header still says what it is."""
    middle = len(data) // 2
    return data[:middle] + bytes(64) + data[middle + 64 :]


def compressed_tar(folder: Path, mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        for n in range(4):  # large enough that the damage falls inside the compressed data
            archive.add(PROJECT_DIR / "snippets" / "ex4-flash-forward.md", f"copy-{n}.md")
    return out.getvalue()


@pytest.mark.parametrize(
    "data, words",
    [
        (lambda f: zipped(f, {"../../escape.md": b"---\n"}), "路径不允许"),
        (lambda f: zipped(f, {"/etc/cron.d/x.md": b"---\n"}), "路径不允许"),
        (lambda f: bomb(), "上限是 256 KB"),
        (lambda f: b"not an archive at all", "不是 zip 或 tar"),
        (lambda f: zipped(f, {f"many/{n}.txt": b"" for n in range(250)}), "超过 200 个"),
        (lambda f: zip_of(*((zipfile.ZipInfo(f"d{n}/"), b"") for n in range(250))), "超过 200 个"),
        (lambda f: utf8_flagged_name_that_is_not_utf8(), "zip 压缩包读不出来"),
        (lambda f: latin1_tar(f), "不是 UTF-8"),
        (lambda f: zip_symlink(), "不是普通文件"),
        (lambda f: damaged(zipped(f)), "读不出来"),
        (lambda f: damaged(compressed_tar(f, "w:gz")), "读不出来"),
        (lambda f: damaged(compressed_tar(f, "w:bz2")), "读不出来"),
        (lambda f: damaged(compressed_tar(f, "w:xz")), "读不出来"),
    ],
    ids=[
        "dot-dot",
        "absolute",
        "bomb",
        "not-an-archive",
        "250-members",
        "250-directories",
        "utf8-flag-not-utf8",
        "tar-name-not-utf8",
        "zip-symlink",
        "zip-deflate-damaged",
        "gzip-damaged",
        "bz2-damaged",
        "xz-damaged",
    ],
)
def test_hostile_archives_are_refused_whole(course, tmp_path, data, words):
    before = uploaded(course["url"])
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "fresh-one.md").write_text((PROJECT_DIR / "snippets" / "mlm-online-softmax.md").read_text())
    refused = post(course["url"], data(folder))
    assert refused.status_code == 422 and words in refused.text, refused.text[:500]
    assert not any("['" in problem for problem in refused.json().get("error", [])), refused.text  # one message each
    assert uploaded(course["url"]) == before


def test_an_index_of_many_unknown_ids_is_answered_without_stalling_the_server(course, tmp_path):
    """1,200 unknown ids in YAML escapes, the file padded to 240 KB: the 20 first named, the rest counted, and
    /healthz answered meanwhile (the index check searched every line for every id on the event loop:
    a 50 s stall)."""
    ids = ", ".join(["plain-unknown"] + [f'"\\x7a{n:04d}"' for n in range(1200)])  # under 16 KB of YAML
    index = f"---\ntitle: t\nsections:\n  - title: s\n    snippets: [{ids}]\n---\n" + "a line of prose\n" * 15000
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "fresh-one.md").write_text((PROJECT_DIR / "snippets" / "mlm-online-softmax.md").read_text())
    data = zipped(folder, {"_index.md": index.encode()})
    answer: list[httpx.Response] = []
    importer = threading.Thread(target=lambda: answer.append(post(course["url"], data, "?home=true")))
    importer.start()
    waits = []
    while importer.is_alive():
        started = time.monotonic()
        assert httpx.get(f"{course['url']}/healthz", timeout=60).status_code == 200
        waits.append(time.monotonic() - started)
        time.sleep(0.05)
    importer.join()
    assert answer[0].status_code == 422
    found = next(f for f in answer[0].json()["files"] if f["file"] == "_index.md")["problems"]
    assert len(found) == 21 and "1181" in found[-1]["message"]
    assert found[0]["line"] == 5 and "plain-unknown" in found[0]["message"] and "z0000" in found[1]["message"]
    assert max(waits) < 5, waits  # a loaded CI machine aside, well under a second


def test_import_needs_the_token_and_an_archive_type(course):
    assert httpx.post(f"{course['url']}/api/import", content=b"x").status_code == 401
    assert post(course["url"], b"x", kind="text/html").status_code == 415
    assert post(course["url"], b"x", query="?publish=maybe").status_code == 422
