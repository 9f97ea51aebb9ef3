"""Teachers' accounts through a real uvicorn: an admin (the operators' token) invites a teacher, the
teacher sets a password through the one-time link and signs in with it; only admins manage
accounts; a disabled teacher's session ends at once and their password no longer signs in."""

import itertools
import re

import httpx
import pytest

from tests.servers import running_server
from tests.teach_helpers import TOKEN, archive, snippet_text, upload

pytestmark = pytest.mark.server
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(
        tmp_path_factory.mktemp("accounts"), CODECLOZE_TEACHER_TOKEN=TOKEN, CODECLOZE_EXECUTION="false"
    ) as url:
        yield url


ADDRESSES = (f"127.0.1.{n}" for n in itertools.count(1))


def browser(url: str, source: str | None = None) -> httpx.Client:
    """A browser of its own address: wrong logins back off per address, and each test's are its own."""
    return httpx.Client(
        base_url=url,
        headers={"origin": url, "accept-language": "en"},
        timeout=30,
        follow_redirects=True,
        transport=httpx.HTTPTransport(local_address=source or next(ADDRESSES)),
    )


def csrf_of(page: httpx.Response) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def admin(url: str) -> httpx.Client:
    client = browser(url)
    assert client.get(f"/teach/login?token={TOKEN}").status_code == 200  # after the redirect: the dashboard
    return client


def invited(client: httpx.Client, login: str, name: str, role: str = "teacher") -> str:
    """The one-time sign-up link the accounts page shows after inviting."""
    token = csrf_of(client.get("/teach/accounts"))
    page = client.post("/teach/accounts", data={"csrf": token, "login": login, "name": name, "role": role})
    assert page.status_code == 201, page.text
    return re.search(r'value="(http[^"]+/teach/welcome\?code=[^"]+)"', page.text).group(1)


def signed_up(url: str, link: str, password: str = PASSWORD) -> httpx.Client:
    client = browser(url)
    code = link.split("code=")[1]
    assert client.get(f"/teach/welcome?code={code}").status_code == 200
    done = client.post("/teach/welcome", data={"code": code, "password": password, "again": password})
    assert done.status_code == 200 and "/teach" in str(done.url), done.text  # signed in, on the dashboard
    return client


def signed_in(url: str, login: str, password: str) -> httpx.Response:
    return browser(url).post("/teach/login", data={"login": login, "password": password}, follow_redirects=False)


def account_id(client: httpx.Client, login: str) -> int:
    rows = client.get("/teach/accounts", headers={"accept": "application/json"}).json()["teachers"]
    return next(t["id"] for t in rows if t["login"] == login)


def test_an_invited_teacher_sets_a_password_once_and_signs_in_with_it(server):
    boss = admin(server)
    link = invited(boss, "Ada@School.example", "Ada Lovelace")
    ada = signed_up(server, link)
    assert ada.get("/teach").status_code == 200
    code = link.split("code=")[1]
    again = browser(server).post("/teach/welcome", data={"code": code, "password": "x" * 12, "again": "x" * 12})
    assert again.status_code == 404  # the link is used up
    assert signed_in(server, "ada@school.example", PASSWORD).status_code == 303
    assert signed_in(server, "ada@school.example", "x" * 12).status_code == 401
    assert signed_in(server, "nobody@school.example", PASSWORD).status_code == 401
    rows = boss.get("/teach/accounts", headers={"accept": "application/json"}).json()["teachers"]
    ada_row = next(t for t in rows if t["login"] == "ada@school.example")
    assert ada_row["state"] == "active" and ada_row["role"] == "teacher" and ada_row["name"] == "Ada Lovelace"


def test_a_short_or_mismatched_password_is_refused_and_the_link_still_works(server):
    link = invited(admin(server), "grace", "Grace Hopper")
    code = link.split("code=")[1]
    client = browser(server)
    short = client.post("/teach/welcome", data={"code": code, "password": "short", "again": "short"})
    assert short.status_code == 422 and "10" in short.text
    apart = client.post("/teach/welcome", data={"code": code, "password": PASSWORD, "again": PASSWORD + "!"})
    assert apart.status_code == 422
    assert signed_in(server, "grace", PASSWORD).status_code == 401  # no password was set
    signed_up(server, link)
    assert signed_in(server, "grace", PASSWORD).status_code == 303


def test_only_admins_manage_accounts(server):
    boss = admin(server)
    teacher = signed_up(server, invited(boss, "ben", "Ben"))
    assert teacher.get("/teach/accounts").status_code == 403
    assert 'href="/teach/accounts"' not in teacher.get("/teach").text
    assert 'href="/teach/accounts"' in boss.get("/teach").text
    token = csrf_of(teacher.get("/teach"))
    refused = teacher.post("/teach/accounts", data={"csrf": token, "login": "mallory", "name": "M", "role": "admin"})
    assert refused.status_code == 403
    assert all(
        t["login"] != "mallory"
        for t in boss.get("/teach/accounts", headers={"accept": "application/json"}).json()["teachers"]
    )
    head = signed_up(server, invited(boss, "hana", "Hana", role="admin"))
    assert head.get("/teach/accounts").status_code == 200  # an admin account manages accounts too
    taken = boss.post("/teach/accounts", data={"csrf": csrf_of(boss.get("/teach")), "login": "BEN", "name": "B2"})
    assert taken.status_code == 409


def test_a_disabled_teachers_session_ends_at_once_and_enabling_lets_them_back(server):
    boss = admin(server)
    cleo = signed_up(server, invited(boss, "cleo", "Cleo"))
    assert cleo.get("/teach").status_code == 200
    token, who = csrf_of(boss.get("/teach/accounts")), account_id(boss, "cleo")
    assert boss.post(f"/teach/accounts/{who}/disable", data={"csrf": token}).status_code == 200
    assert cleo.get("/teach", follow_redirects=False).status_code in (303, 401)
    assert cleo.get("/teach/classes", headers={"accept": "application/json"}).status_code == 401
    assert signed_in(server, "cleo", PASSWORD).status_code == 401
    assert boss.post(f"/teach/accounts/{who}/enable", data={"csrf": token}).status_code == 200
    assert (
        cleo.get("/teach/classes", headers={"accept": "application/json"}).status_code == 401
    )  # that session stays ended
    assert signed_in(server, "cleo", PASSWORD).status_code == 303


def test_a_new_link_replaces_the_old_one_and_the_password(server):
    boss = admin(server)
    first = invited(boss, "dan", "Dan")
    dan = signed_up(server, first)
    token, who = csrf_of(boss.get("/teach/accounts")), account_id(boss, "dan")
    again = boss.post(f"/teach/accounts/{who}/reinvite", data={"csrf": token})
    second = re.search(r'value="(http[^"]+/teach/welcome\?code=[^"]+)"', again.text).group(1)
    assert second != first
    assert dan.get("/teach/classes", headers={"accept": "application/json"}).status_code == 401
    assert signed_in(server, "dan", PASSWORD).status_code == 401
    signed_up(server, second, "a new password here")
    assert signed_in(server, "dan", "a new password here").status_code == 303


def test_wrong_passwords_are_backed_off_whatever_comes_next(server):
    boss = admin(server)
    signed_up(server, invited(boss, "eve", "Eve"))
    client = browser(server)
    statuses = [
        client.post("/teach/login", data={"login": "eve", "password": f"guess {n}"}, follow_redirects=False).status_code
        for n in range(12)
    ]
    assert statuses[0] == 401 and statuses[-1] == 429
    right = client.post("/teach/login", data={"login": "eve", "password": PASSWORD}, follow_redirects=False)
    assert right.status_code == 429  # backed off: the right password is not even tried


def test_odd_account_requests_are_refused_and_change_nothing(server):
    boss = admin(server)
    token = csrf_of(boss.get("/teach/accounts"))
    before = boss.get("/teach/accounts", headers={"accept": "application/json"}).json()["teachers"]
    for path in (
        "/teach/accounts/99999999999999999999/disable",
        "/teach/accounts/0/disable",
        "/teach/accounts/7777/enable",
    ):
        assert boss.post(path, data={"csrf": token}).status_code in (404, 422), path
    assert boss.post("/teach/accounts/1/explode", data={"csrf": token}).status_code == 404
    assert boss.post("/teach/accounts/1/disable", data={"csrf": "wrong"}).status_code == 403
    for fields in (
        {"login": "a b", "name": "X"},
        {"login": "ok-login", "name": ""},
        {"login": "ok2", "name": "Y", "role": "root"},
    ):
        assert boss.post("/teach/accounts", data={"csrf": token, **fields}).status_code == 422, fields
    assert browser(server).get("/teach/welcome?code=nothing-like-it").status_code == 404
    assert boss.get("/teach/accounts", headers={"accept": "application/json"}).json()["teachers"] == before


def classes_of(client: httpx.Client) -> set[str]:
    return {c["code"] for c in client.get("/teach/classes", headers={"accept": "application/json"}).json()["classes"]}


def made_class(client: httpx.Client, code: str) -> None:
    made = client.post("/teach/classes", data={"csrf": csrf_of(client.get("/teach")), "code": code, "name": code})
    assert made.status_code == 200 and f"/teach/classes/{code}" in str(made.url), made.text


def test_a_teacher_sees_and_changes_only_the_classes_they_teach(server):
    boss = admin(server)
    fay = signed_up(server, invited(boss, "fay", "Fay"))
    gus = signed_up(server, invited(boss, "gus", "Gus"))
    made_class(fay, "FAY-1")
    made_class(boss, "BOSS-1")  # with the token: an admin's, nobody's own
    assert "FAY-1" in classes_of(fay) and "BOSS-1" not in classes_of(fay)
    assert classes_of(gus) & {"FAY-1", "BOSS-1"} == set()
    assert {"FAY-1", "BOSS-1"} <= classes_of(boss)  # an admin sees every class
    token = csrf_of(gus.get("/teach"))
    for response in (
        gus.get("/teach/classes/FAY-1"),
        gus.get("/teach/classes/fay-1"),  # a code in any case
        gus.get("/teach/classes/FAY-1/attempts.csv"),
        gus.post("/teach/classes/FAY-1/rename", data={"csrf": token, "name": "taken over"}),
        gus.post("/teach/classes/FAY-1/archive", data={"csrf": token, "confirm": "yes"}),
        gus.post("/teach/classes/FAY-1/teachers", data={"csrf": token, "login": "gus"}),
        gus.get("/teach/stats/mlm-online-softmax?class=FAY-1"),
    ):
        assert response.status_code == 404, (response.request.url, response.status_code)
    assert "taken over" not in fay.get("/teach/classes/FAY-1").text
    added = fay.post("/teach/classes/FAY-1/teachers", data={"csrf": csrf_of(fay.get("/teach")), "login": "GUS"})
    assert added.status_code == 200 and "Gus" in added.text
    assert "FAY-1" in classes_of(gus)
    assert gus.post("/teach/classes/FAY-1/rename", data={"csrf": token, "name": "Fay and Gus"}).status_code == 200
    assert "Fay and Gus" in fay.get("/teach/classes/FAY-1").text
    assert gus.get("/teach/stats/mlm-online-softmax?class=FAY-1").status_code == 200
    unknown = fay.post("/teach/classes/FAY-1/teachers", data={"csrf": csrf_of(fay.get("/teach")), "login": "nobody"})
    assert unknown.status_code == 404 and "nobody" in unknown.text
    gus_id = account_id(boss, "gus")
    fay.post(f"/teach/classes/FAY-1/teachers/{gus_id}/remove", data={"csrf": csrf_of(fay.get("/teach"))})
    assert "FAY-1" not in classes_of(gus) and gus.get("/teach/classes/FAY-1").status_code == 404


def test_a_teacher_changes_only_the_snippets_they_uploaded(server):
    boss = admin(server)
    ida = signed_up(server, invited(boss, "ida", "Ida"))
    jon = signed_up(server, invited(boss, "jon", "Jon"))
    saved = upload(ida, csrf_of(ida.get("/teach")), snippet_text("Ida square"), "ida-square")
    assert saved.status_code == 200 and "/teach/snippets/ida-square" in str(saved.url), saved.text
    token = csrf_of(jon.get("/teach"))
    for response in (
        jon.get("/teach/snippets/ida-square/edit"),
        jon.post("/teach/snippets/ida-square/edit", data={"csrf": token, "text": snippet_text("Jon now")}),
        jon.post("/teach/snippets/ida-square/publish", data={"csrf": token}),
        jon.post("/teach/snippets/ida-square/delete", data={"csrf": token, "confirm": "ida-square"}),
        jon.get("/teach/snippets/ida-square/delete"),
        jon.post("/teach/snippets/ida-square/strength/decisions", data={"csrf": token, "kind": "line", "line": "2"}),
        jon.post("/teach/snippets/mlm-online-softmax/strength/decisions", data={"csrf": token, "kind": "line"}),
    ):
        assert response.status_code == 403, (response.request.url, response.status_code)
    assert jon.get("/teach/snippets/ida-square").status_code == 200  # seen, as every snippet is
    assert "Ida square" in jon.get("/teach/snippets/ida-square").text
    assert ida.post("/teach/snippets/ida-square/publish", data={"csrf": csrf_of(ida.get("/teach"))}).status_code == 200
    edited = boss.post(
        "/teach/snippets/ida-square/edit",
        data={"csrf": csrf_of(boss.get("/teach")), "text": snippet_text("By the admin")},
    )
    assert edited.status_code == 200 and "By the admin" in edited.text  # an admin changes any
    assert ida.get("/teach/snippets/ida-square/edit").status_code == 200  # still Ida's after the admin's edit


def accepting(client: httpx.Client, snippet_id: str) -> httpx.Response:
    """Accept an answer at the snippet's first blank (an accepted answer scores for every learner)."""
    stats = client.get(f"/teach/stats/{snippet_id}", headers={"accept": "application/json"}).json()
    form = {"csrf": csrf_of(client.get("/teach")), "version": stats["version"], "first": "0", "last": "0"}
    return client.post(f"/teach/stats/{snippet_id}/alternatives", data={**form, "text": "y"}, follow_redirects=False)


def test_only_a_snippets_owner_or_an_admin_accepts_an_answer_for_it(server):
    boss = admin(server)
    uma = signed_up(server, invited(boss, "uma", "Uma"))
    vic = signed_up(server, invited(boss, "vic", "Vic"))
    upload(uma, csrf_of(uma.get("/teach")), snippet_text("Uma square"), "uma-square")
    assert accepting(vic, "uma-square").status_code == 403
    assert accepting(vic, "mlm-online-softmax").status_code == 403  # bundled: admins'
    assert accepting(uma, "uma-square").status_code == 303
    assert accepting(boss, "mlm-online-softmax").status_code == 303
    rows = boss.get("/teach/audit", headers={"accept": "application/json"}).json()["changes"]
    mine = [(r["who"], r["subject"]) for r in rows if r["action"] == "answer accepted"]
    assert ("Uma", "uma-square") in mine and not [who for who, _ in mine if who == "Vic"]


def test_a_teachers_course_import_keeps_off_others_snippets_and_the_home_page(server):
    boss = admin(server)
    kim = signed_up(server, invited(boss, "kim", "Kim"))
    lou = signed_up(server, invited(boss, "lou", "Lou"))
    upload(kim, csrf_of(kim.get("/teach")), snippet_text("Kim square"), "kim-square")
    data = archive({"kim-square.md": snippet_text("Lou over Kim"), "lou-new.md": snippet_text("Lou new")})

    def imported(client, **choices):
        fields = {"csrf": csrf_of(client.get("/teach")), **choices}
        return client.post("/teach/import", data=fields, files={"archive": ("course.zip", data, "application/zip")})

    refused = imported(lou)
    assert refused.status_code == 422 and "kim-square" in refused.text
    assert imported(lou, home="1").status_code == 403  # the home page is an admin's
    assert "Kim square" in kim.get("/teach/snippets/kim-square/edit").text
    assert imported(boss).status_code == 200  # an admin's preview of the same archive is clean


def test_the_audit_trail_names_who_changed_what(server):
    boss = admin(server)
    mia = signed_up(server, invited(boss, "mia", "Mia"))
    made_class(mia, "MIA-1")
    token = csrf_of(mia.get("/teach"))
    mia.post("/teach/classes/MIA-1/rename", data={"csrf": token, "name": "Mia group"})
    upload(mia, token, snippet_text("Mia square"), "mia-square")
    mia.post("/teach/snippets/mia-square/publish", data={"csrf": token})
    boss.post(f"/teach/accounts/{account_id(boss, 'mia')}/disable", data={"csrf": csrf_of(boss.get("/teach"))})
    rows = boss.get("/teach/audit", headers={"accept": "application/json"}).json()["changes"]
    mine = [r for r in rows if r["subject"] in ("MIA-1", "mia-square", "mia")][::-1]  # oldest first
    assert [(r["action"], r["subject"]) for r in mine] == [
        ("invited", "mia"),
        ("created", "MIA-1"),
        ("renamed", "MIA-1"),
        ("uploaded", "mia-square"),
        ("published", "mia-square"),
        ("disabled", "mia"),
    ]
    assert {r["who"] for r in mine[1:5]} == {"Mia"} and {r["account"] for r in mine[1:5]} != {None}
    assert mine[0]["who"] == mine[5]["who"] and mine[0]["account"] is None  # the token's holder
    assert "Mia" in boss.get("/teach/classes/MIA-1").text and "Renamed" in boss.get("/teach/classes/MIA-1").text
    assert "Published" in boss.get("/teach/snippets/mia-square").text  # beside the snippet, in the page's language
    nia = signed_up(server, invited(boss, "nia", "Nia"))
    assert nia.get("/teach/audit").status_code == 403


def test_changes_through_the_api_are_recorded_as_the_apis(server):
    api = httpx.Client(base_url=server, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
    made = api.put(
        "/api/snippets/api-square", content=snippet_text("API square"), headers={"content-type": "text/markdown"}
    )
    assert made.status_code == 201, made.text
    assert api.post("/api/snippets/api-square/publish").status_code == 200
    rows = admin(server).get("/teach/audit", headers={"accept": "application/json"}).json()["changes"]
    mine = [(r["who"], r["action"]) for r in rows if r["subject"] == "api-square"][::-1]
    assert mine == [("API", "uploaded"), ("API", "published")]
