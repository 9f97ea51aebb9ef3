"""Tried as attackers would, through a real uvicorn, with honest users at the same time:
cross-site posts, wrong teacher tokens, a huge unauthenticated multipart body, dates at the edge."""

import sqlite3
import threading
import time

import httpx
import pytest

from tests.helpers import drill_form
from tests.servers import running_server
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.server

EVIL = "http://evil.example"
SNIPPET = "mlm-online-softmax"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("trust")
    with running_server(data, CODECLOZE_TEACHER_TOKEN=TOKEN, CODECLOZE_EXECUTION="false") as url:
        yield url, data


def rows(data) -> dict:
    """Every learner-owned row, to show that a refused post changed nothing."""
    with sqlite3.connect(data / "codecloze.db") as db:
        return {
            table: db.execute(f"select * from {table} order by 1").fetchall()
            for table in ("learners", "attempts", "memory_cards", "classes")
        }


def honest(url: str) -> httpx.Client:
    """A browser-like learner: its own site in Origin."""
    return httpx.Client(base_url=url, headers={"origin": url}, timeout=30, follow_redirects=True)


def teacher(url: str) -> tuple[httpx.Client, str]:
    import re

    client = honest(url)
    assert client.get(f"/teach/login?token={TOKEN}").status_code == 200
    return client, re.search(r'name="csrf" value="([^"]+)"', client.get("/teach").text).group(1)


def test_cross_site_posts_are_refused_set_no_cookie_and_change_nothing(served, main_app):
    url, data = served
    tutor, csrf = teacher(url)
    assert tutor.post("/teach/classes", data={"csrf": csrf, "code": "c1"}).status_code == 200
    learner = honest(url)
    learner.post("/join/c1").raise_for_status()
    learner.post("/me/profile", data={"name": "小明", "class_code": "c1"}).raise_for_status()
    form = drill_form(main_app, SNIPPET, 20, 3)
    assert learner.post(f"/s/{SNIPPET}/drill", data=form).status_code == 200
    cookie = learner.cookies["cc_learner"]
    before = rows(data)
    attacks = [
        ("/me/profile", {"name": "hacked", "class_code": ""}),
        ("/me/delete", {"confirm": "yes"}),
        ("/me/link", {}),
        ("/join/c1", {}),
        (f"/s/{SNIPPET}/drill", form),
        ("/teach/classes", {"csrf": csrf, "code": "evil"}),
        ("/teach/logout", {"csrf": csrf}),
    ]
    forged = [
        {"origin": EVIL},
        {"origin": "null"},
        {"referer": EVIL + "/page"},
        {"origin": url, "sec-fetch-site": "cross-site"},
        {},  # names no page at all: no page of this site sends that
        {"sec-fetch-site": "same-origin"},  # a header alone is no page
    ]
    for path, fields in attacks:
        for headers in forged:
            for cookies in ({"cc_learner": cookie, **tutor.cookies}, {}):  # the victim's browser, and none
                response = httpx.post(url + path, data=fields, headers=headers, cookies=cookies)
                assert response.status_code == 403, (path, headers)
                assert "只能在本站的页面上提交" in response.text
                assert "set-cookie" not in response.headers, (path, headers)
    english = httpx.post(url + "/me/delete", data={"confirm": "yes"}, headers={"origin": EVIL, "accept-language": "en"})
    assert english.status_code == 403 and "only be submitted from this site" in english.text
    assert rows(data) == before
    # The same posts from the site's own pages work: Origin, or Referer when Origin is absent.
    assert learner.post("/me/profile", data={"name": "小红", "class_code": "c1"}).status_code == 200
    same_referer = httpx.post(
        url + "/me/link", headers={"referer": url + "/me"}, cookies={"cc_learner": cookie}, follow_redirects=False
    )
    assert same_referer.status_code == 303
    assert rows(data)["learners"] != before["learners"]


def test_behind_a_guessing_address_a_teachers_known_browser_signs_in_and_nothing_else_does(served):
    url, _data = served

    def browser(**options) -> httpx.Client:  # all on one classroom address of their own
        return httpx.Client(
            base_url=url, headers={"origin": url}, transport=httpx.HTTPTransport(local_address="127.0.0.9"), **options
        )

    # A teacher's browser that signed in on this address last week (its device cookie) ...
    known = browser()
    assert known.post("/teach/login", data={"token": TOKEN}, follow_redirects=False).status_code == 303
    known.cookies.delete("cc_teacher")  # ... its session long gone
    student = browser()
    statuses = [student.post("/teach/login", data={"token": f"guess-{i}"}).status_code for i in range(8)]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    # The right token from the guessing address in a new browser is answered as a guess is.
    stranger = browser()
    same = stranger.post("/teach/login", data={"token": TOKEN}, follow_redirects=False)
    assert same.status_code == 429 and "cc_teacher" not in same.headers.get("set-cookie", "")
    # The known browser on that address, and a new one on another address, sign in at once.
    started = time.monotonic()
    response = known.post("/teach/login", data={"token": TOKEN}, follow_redirects=False)
    assert response.status_code == 303 and time.monotonic() - started < 1
    assert known.get("/teach").status_code == 200
    with httpx.Client(
        base_url=url, headers={"origin": url}, transport=httpx.HTTPTransport(local_address="127.0.0.3")
    ) as elsewhere:
        assert elsewhere.post("/teach/login", data={"token": TOKEN}, follow_redirects=False).status_code == 303
    # A device cookie the site did not sign is no device.
    forged = browser(cookies={"cc_teacher_device": "forged.device"})
    assert forged.post("/teach/login", data={"token": TOKEN}, follow_redirects=False).status_code == 429
    assert student.post("/teach/login", data={"token": "guess-9"}).status_code == 429  # still backing off


def test_bearer_tokens_on_the_api_share_the_back_off(served):
    url, _data = served
    with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.7")) as script:
        statuses = [
            script.get("/api/snippets", headers={"authorization": f"Bearer guess-{i}"}).status_code for i in range(7)
        ]
        assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
        right = script.get("/api/snippets", headers={"authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 429  # not even compared while backed off
        assert script.post("/teach/login", data={"token": TOKEN}, headers={"origin": url}).status_code == 429
    with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.8")) as other:
        assert other.get("/api/snippets", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_a_hundred_thousand_field_multipart_post_is_refused_within_a_second(served):
    url, _data = served
    body = b"".join(b'--b\r\nContent-Disposition: form-data; name="f%d"\r\n\r\nx\r\n' % i for i in range(100_000))
    body += b"--b--\r\n"
    headers = {"content-type": "multipart/form-data; boundary=b", "origin": url}
    tutor, csrf = teacher(url)
    results = {}

    def attack(name, cookies):
        started = time.monotonic()
        response = httpx.post(url + "/teach/new", content=body, headers=headers, cookies=cookies, timeout=30)
        results[name] = (response.status_code, time.monotonic() - started)

    threads = [
        threading.Thread(target=attack, args=("anonymous", {})),
        threading.Thread(target=attack, args=("teacher", dict(tutor.cookies))),
    ]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    assert tutor.get("/teach").status_code == 200  # an honest teacher meanwhile
    honest_seconds = time.monotonic() - started
    for thread in threads:
        thread.join()
    assert results["anonymous"][0] == 401 and results["anonymous"][1] < 1, results
    assert results["teacher"][0] in (400, 413) and results["teacher"][1] < 1, results
    assert honest_seconds < 1


@pytest.mark.parametrize(
    "query, status",
    [
        ("to=9999-12-31", 200),
        ("from=0001-01-01", 200),
        ("from=0001-01-01&to=9999-12-31", 200),
        ("to=10000-01-01", 422),
        ("from=0000-12-31", 422),
        ("to=9999-12-32", 422),
        ("from=2026-02-30", 422),
    ],
)
def test_every_date_filter_takes_the_whole_calendar_or_refuses_with_a_422(served, main_app, query, status):
    url, _data = served
    tutor, csrf = teacher(url)
    tutor.post("/teach/classes", data={"csrf": csrf, "code": "dates"})
    learner = honest(url)
    learner.post("/join/dates").raise_for_status()
    assert learner.post(f"/s/{SNIPPET}/drill", data=drill_form(main_app, SNIPPET, 20, 4)).status_code == 200
    csv = tutor.get(f"/teach/classes/dates/attempts.csv?{query}")
    assert csv.status_code == status, csv.text[:300]
    if status == 200:  # the whole export arrived: the header and this learner's blanks
        assert csv.text.startswith("attempt,") and csv.text.count("\n") > 1
    for page in ("/teach/classes/dates", f"/teach/stats/{SNIPPET}", f"/api/snippets/{SNIPPET}/stats"):
        response = tutor.get(f"{page}?{query}", headers={"authorization": f"Bearer {TOKEN}"})
        assert response.status_code == status, (page, response.text[:300])


def test_a_client_cannot_choose_its_address_with_x_forwarded_for(served):
    """No proxy is trusted by default (and uvicorn runs with --no-proxy-headers): wrong tokens
    with a new X-Forwarded-For each still count against the socket's address."""
    url, _data = served
    with httpx.Client(
        base_url=url, headers={"origin": url}, transport=httpx.HTTPTransport(local_address="127.0.0.5")
    ) as student:
        statuses = [
            student.post(
                "/teach/login", data={"token": "guess"}, headers={"x-forwarded-for": f"198.51.100.{i}"}
            ).status_code
            for i in range(7)
        ]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
