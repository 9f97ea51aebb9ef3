"""A real uvicorn whose clock the test sets (libfaketime reads the time from a file on every call,
so rewriting it moves the running server's clock), and learners speaking HTTP to it.

Learners answer from the snippet's own code (the page holds no answers), missing the blanks they
are told to miss; they keep their own log of what each token was asked and how it went.
"""

import html
import os
import re
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from app.engine.tokens import eligible_spans
from app.snippets.library import SnippetLibrary
from tests.servers import SNIPPETS, running_server

FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
SECRET = "faketime-tests-" + "k" * 32
BLANK = re.compile(r'<input class="blank[^"]*" name="s(\d+)"')
HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')
ACTION = re.compile(r'<form class="drill" method="post" action="([^"]+)"')
RETRY = re.compile(r'<a class="button primary retry" href="([^"]+)"')


class Clock:
    def __init__(self, path: Path):
        self.path = path

    def set(self, moment: datetime) -> None:
        self.now = moment
        self.path.write_text(moment.strftime("@%Y-%m-%d %H:%M:%S"))

    def advance(self, **delta) -> None:
        self.set(self.now + timedelta(**delta))


@contextmanager
def faked_server(data_dir: Path, start: datetime):
    """(url, clock): the app served under a clock that starts at `start`."""
    if not FAKETIME.exists():
        if os.environ.get("CI"):
            pytest.fail("these tests need Debian's faketime; .ci/run installs it")
        pytest.skip("libfaketime missing (apt-get install faketime)")
    clock = Clock(data_dir.parent / f"{data_dir.name}.clock")
    clock.set(start)
    env = {
        "LD_PRELOAD": str(FAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(clock.path),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",  # else uvicorn's keep-alive timers fire on every jump
        "CODECLOZE_EXECUTION": "false",
        "CODECLOZE_SECRET_KEY": SECRET,
        "CODECLOZE_FIT_REVIEWS": "0",
    }
    with running_server(data_dir, **env) as url:
        yield url, clock


_library = None


def snippet(snippet_id: str):
    global _library
    if _library is None:
        _library = SnippetLibrary()
        _library.load_dir(SNIPPETS)
    return _library.get(snippet_id)


class Learner:
    """A browser without script: follows redirects, posts the page's own form."""

    def __init__(self, url: str, zone: str | None = None):
        self.http = httpx.Client(base_url=url, timeout=60, follow_redirects=True, headers={"origin": url})
        if zone is not None:
            self.http.cookies.set("cc_tz", zone)
        self.asked: dict[tuple[str, int], list[bool]] = {}  # (snippet, span) → recalled at each test

    def get(self, path: str) -> httpx.Response:
        response = self.http.get(path)
        assert response.status_code == 200, response.text[:500]
        return response

    def answer(self, page: str, snippet_id: str, miss=()) -> str:
        """Submit the page's mask with every blank right except the spans in `miss`; the result page."""
        code = snippet(snippet_id)
        text = {s.index: s.text for s in eligible_spans(code.code)}
        form = {name: html.unescape(value) for name, value in HIDDEN.findall(page)}
        for index in blanks(page):
            form[f"s{index}"] = "nope" if index in miss else text[index]
            self.asked.setdefault((snippet_id, index), []).append(index not in miss)
        response = self.http.post(html.unescape(ACTION.search(page).group(1)), data=form)
        assert response.status_code == 200, response.text[:500]
        return response.text

    def drill(self, snippet_id: str, rate: int, seed: int, miss_first: int = 0) -> tuple[list[int], list[int]]:
        """A random mask answered with its first `miss_first` blanks wrong: (blanks, missed)."""
        page = self.get(f"/s/{snippet_id}/drill?rate={rate}&seed={seed}").text
        shown = blanks(page)
        missed = shown[:miss_first]
        self.last_result = self.answer(page, snippet_id, set(missed))
        return shown, missed

    def me(self) -> dict:
        return self.http.get("/me", headers={"accept": "application/json"}).json()

    def progress(self, snippet_id: str) -> dict:
        return next(s for s in self.me()["snippets"] if s["snippet"] == snippet_id)

    def missed_last_time(self, snippet_id: str) -> set[int]:
        return {i for (s, i), outcomes in self.asked.items() if s == snippet_id and not outcomes[-1]}


def blanks(page: str) -> list[int]:
    return [int(i) for i in BLANK.findall(page)]


def retry_link(result: str) -> str | None:
    found = RETRY.search(result)
    return html.unescape(found.group(1)) if found else None
