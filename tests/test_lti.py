"""codecloze as an LTI 1.3 tool, through a real uvicorn, against an LMS it did not write: the
platform side is lti1p3platform's (tests/lms.py), served by a uvicorn of its own. An admin registers
the LMS; students and instructors launch from it; an instructor deep-links a drill as an activity;
a student's attempts send their progress to the LMS's gradebook, retried until it takes. Forged,
expired, replayed and wrong-audience launches sign no one in and change nothing."""

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.helpers import eventually
from tests.lms import follow, start_lms, stop_lms
from tests.servers import running_server, start_server
from tests.teach_helpers import TOKEN

pytestmark = pytest.mark.server
SNIPPET = "mlm-online-softmax"
JSON = {"accept": "application/json"}


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    with running_server(
        tmp_path_factory.mktemp("lti"), CODECLOZE_TEACHER_TOKEN=TOKEN, CODECLOZE_EXECUTION="false"
    ) as url:
        yield url


@pytest.fixture(scope="module")
def lms(tool):
    lms = start_lms(tool)
    registered = api(tool).post("/api/lti/platforms", json={"name": "Test LMS", **lms.registration})
    assert registered.status_code == 201, registered.text
    yield lms
    stop_lms(lms)


def api(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"authorization": f"Bearer {TOKEN}", **JSON}, timeout=30)


def browser() -> httpx.Client:
    """A browser: a cookie jar, each hop taken by `follow` (as tests/lms.py asks)."""
    return httpx.Client(timeout=30, follow_redirects=False, headers={"accept-language": "en"})


def through_cookie_check(client: httpx.Client, page: httpx.Response) -> httpx.Response:
    """What the login page's script does where cookies work: load it again, marked as checked."""
    if page.status_code == 200 and "lti1p3-new-tab-link" in page.text:
        separator = "&" if "?" in str(page.url) else "?"
        return client.get(f"{page.url}{separator}lti1p3_new_window=1")
    return page


def launched(lms, client: httpx.Client | None = None, **launch) -> tuple[httpx.Client, httpx.Response]:
    """A browser that went from the LMS's link to wherever the launch took it."""
    client = client or browser()
    page = follow(client, client.get(lms.login_url(**launch)))
    return client, follow(client, through_cookie_check(client, page))


def at_authorization(lms, client: httpx.Client, **launch) -> dict:
    """Stop where the tool sends the browser to the LMS to authenticate: its state and nonce."""
    to_tool = client.get(lms.login_url(**launch))
    login = through_cookie_check(client, client.get(to_tool.headers["location"]))
    assert login.status_code == 302, login.text
    asked = parse_qs(urlsplit(login.headers["location"]).query)
    return {"state": asked["state"][0], "nonce": asked["nonce"][0]}


def world(tool: str) -> dict:
    """What a launch could change: accounts, classes, and the learners in them."""
    boss = api(tool)
    classes = boss.get("/api/classes").json()
    return {"classes": classes, "accounts": admin_page(tool, "/teach/accounts")["teachers"]}


def admin_page(tool: str, path: str) -> dict:
    with httpx.Client(base_url=tool, timeout=30, headers={"origin": tool, **JSON}) as boss:
        assert boss.get(f"/teach/login?token={TOKEN}", follow_redirects=True).status_code == 200
        return boss.get(path).json()


def other_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def drill_attempt(tool: str, client: httpx.Client, seed: int = 1) -> dict:
    """One attempt at the assignment's drill (20 %, every answer wrong: token match alone)."""
    page = client.get(f"{tool}/s/{SNIPPET}/drill?rate=20&seed={seed}", headers=JSON).json()
    answers = {blank["key"]: "wrong" for blank in page["blanks"]}
    body = {"version": page["version"], "rate": 20, "seed": seed, "answers": answers}
    done = client.post(f"{tool}/s/{SNIPPET}/drill", headers={"origin": tool, **JSON}, json=body)
    assert done.status_code == 200, done.text
    return done.json()


def test_an_admin_registers_a_platform_and_sees_the_urls_to_give_it(tool, lms):
    listed = api(tool).get("/api/lti/platforms").json()
    assert [p["issuer"] for p in listed["platforms"]] == [lms.url]
    assert listed["tool"]["login"] == f"{tool}/lti/login" and listed["tool"]["jwks"] == f"{tool}/lti/jwks"
    again = api(tool).post("/api/lti/platforms", json={"name": "Again", **lms.registration})
    assert again.status_code == 409
    wrong = api(tool).post("/api/lti/platforms", json={**lms.registration, "name": "x", "key_set_url": "file:///etc"})
    assert wrong.status_code == 422 and "key_set_url" in wrong.text
    keys = httpx.get(f"{tool}/lti/jwks").json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and "d" not in keys[0]
    with httpx.Client(base_url=tool, timeout=30, headers={"origin": tool}) as boss:
        boss.get(f"/teach/login?token={TOKEN}", follow_redirects=True)
        csrf = re.search(r'name="csrf" value="([^"]+)"', boss.get("/teach/lti").text).group(1)
        platform = listed["platforms"][0]["id"]
        unconfirmed = boss.post(f"/teach/lti/{platform}/delete", data={"csrf": csrf})
        assert unconfirmed.status_code == 422  # removing unbinds its users and courses: asked first
    assert api(tool).get("/api/lti/platforms").json()["platforms"] == listed["platforms"]
    assert httpx.get(f"{tool}/teach/lti", headers=JSON).status_code == 401  # admins only
    page = admin_page(tool, "/teach/lti")
    assert page["tool"]["launch"] == f"{tool}/lti/launch" and page["platforms"][0]["client_id"] == lms.client_id


def test_a_student_launch_signs_in_a_learner_bound_to_the_lms_user_in_the_course_class(tool, lms):
    first, landed = launched(lms, user="stu-1", name="Grace Hopper", course="c-101", course_title="Attention 101")
    assert landed.status_code == 200 and urlsplit(str(landed.url)).path == "/me", landed.text[:300]
    me = first.get(f"{tool}/me", headers=JSON).json()["learner"]
    assert me["name"] == "Grace Hopper" and me["class_name"] == "Attention 101"
    drill_attempt(tool, first)
    # Another device, the same LMS user: the same learner, with the practice done on the first.
    second, _ = launched(lms, user="stu-1", name="Grace Hopper", course="c-101", course_title="Attention 101")
    assert second.cookies.get("cc_learner") == first.cookies.get("cc_learner")
    practised = second.get(f"{tool}/me", headers=JSON).json()["snippets"]
    assert SNIPPET in str(practised)
    # Another LMS user in the same course: another learner, in the same class.
    _other, _ = launched(lms, user="stu-2", course="c-101", course_title="Attention 101")
    assert _other.cookies.get("cc_learner") != first.cookies.get("cc_learner")
    code = me["class_code"]
    assert _other.get(f"{tool}/me", headers=JSON).json()["learner"]["class_code"] == code


def test_an_instructor_launch_signs_in_a_teacher_who_teaches_the_course_class(tool, lms):
    client, landed = launched(
        lms, user="prof-1", role="instructor", name="Ada Lovelace", course="c-202", course_title="Kernels"
    )
    path = urlsplit(str(landed.url)).path
    assert landed.status_code == 200 and path.startswith("/teach/classes/"), landed.text[:300]
    code = path.rsplit("/", 1)[1]
    classes = client.get(f"{tool}/teach/classes", headers=JSON).json()
    assert [c["code"] for c in classes["classes"]] == [code]  # the course's class, and only it
    accounts = {a["name"]: a for a in admin_page(tool, "/teach/accounts")["teachers"]}
    assert accounts["Ada Lovelace"]["role"] == "teacher" and accounts["Ada Lovelace"]["state"] == "active"
    # A second instructor of the course teaches it beside the first; the first launch's account is reused.
    other, _ = launched(
        lms, user="prof-2", role="instructor", name="Alan Turing", course="c-202", course_title="Kernels"
    )
    assert [c["code"] for c in other.get(f"{tool}/teach/classes", headers=JSON).json()["classes"]] == [code]
    again, _ = launched(lms, user="prof-1", role="instructor", name="Ada Lovelace", course="c-202")
    names = [a["name"] for a in admin_page(tool, "/teach/accounts")["teachers"]]
    assert names.count("Ada Lovelace") == 1 and names.count("Alan Turing") == 1
    # An instructor is no admin: the accounts page stays closed to them.
    assert again.get(f"{tool}/teach/accounts", headers=JSON).status_code == 403
    assert again.get(f"{tool}/teach/lti", headers=JSON).status_code == 403


def deep_linked(tool: str, lms, course: str, **target) -> dict:
    """An instructor picks the drill as an activity; the LMS's deep link that came back."""
    client, picker = launched(lms, user="prof-dl", role="instructor", name="Dee Linker", course=course, kind="deep")
    assert picker.status_code == 200 and 'action="/lti/deep-link"' in picker.text, picker.text[:300]
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', picker.text))
    form = {
        **fields,
        "snippet": SNIPPET,
        "mode": "random",
        "rate": "20",
        "unit": "token",
        "due": "2099-01-01",
        **target,
    }
    picked = client.post(f"{tool}/lti/deep-link", data=form, headers={"origin": tool})
    assert picked.status_code == 200, picked.text[:300]
    back = follow(client, picked)
    assert back.status_code == 200 and "Deep link received" in back.text, back.text[:300]
    return lms.deep_links[-1][0]


def test_deep_linking_makes_an_assignment_whose_progress_reaches_the_gradebook(tool, lms):
    item = deep_linked(tool, lms, "c-303", target_kind="reviews", target_reviews="2")
    assert item["type"] == "ltiResourceLink" and item["custom"]["assignment"].isdigit()
    assert item["lineItem"]["scoreMaximum"] == 1
    link = next(key[1] for key, v in lms.links.items() if key[0] == "c-303" and v["custom"] == item["custom"])
    student, landed = launched(lms, user="stu-dl", course="c-303", link=link)
    assert urlsplit(str(landed.url)).path == f"/s/{SNIPPET}/drill", landed.url  # straight to the assignment
    assert parse_qs(urlsplit(str(landed.url)).query)["rate"] == ["20"]
    drill_attempt(tool, student)
    score = eventually(lambda: [s for s in lms.scores if s["userId"] == "stu-dl"])[-1]
    assert score["scoreGiven"] == 0.5 and score["scoreMaximum"] == 1  # one review day of the two asked
    assert score["activityProgress"] == "InProgress" and score["gradingProgress"] == "FullyGraded"
    lineitem = lms.lineitems[score["lineitem"]]
    assert lineitem["resourceLinkId"] == link


def test_a_grade_the_lms_refuses_for_a_while_is_sent_again_until_it_takes(tool, lms):
    item = deep_linked(tool, lms, "c-404", target_kind="reviews", target_reviews="1")
    link = next(key[1] for key, v in lms.links.items() if key[0] == "c-404" and v["custom"] == item["custom"])
    student, _ = launched(lms, user="stu-retry", course="c-404", link=link)
    lms.fail_scores = 2
    drill_attempt(tool, student)
    failing = eventually(lambda: httpx.get(f"{tool}/healthz").json()["lti_grades"]["failing"])
    assert failing >= 1  # what an operator sees while the LMS refuses
    score = eventually(lambda: [s for s in lms.scores if s["userId"] == "stu-retry"], seconds=60)[-1]
    assert lms.fail_scores == 0 and score["scoreGiven"] == 1.0 and score["activityProgress"] == "Completed"
    assert eventually(lambda: httpx.get(f"{tool}/healthz").json()["lti_grades"] == {"owed": 0, "failing": 0})


def test_a_grade_owed_when_the_server_stops_is_sent_when_it_starts_again(tmp_path):
    data = tmp_path / "data"
    env = {"CODECLOZE_TEACHER_TOKEN": TOKEN, "CODECLOZE_EXECUTION": "false"}
    proc, tool = start_server(data, **env)
    lms = None
    try:
        lms = start_lms(tool)
        assert api(tool).post("/api/lti/platforms", json={"name": "LMS", **lms.registration}).status_code == 201
        item = deep_linked(tool, lms, "c-505", target_kind="reviews", target_reviews="1")
        link = next(key[1] for key, v in lms.links.items() if key[0] == "c-505" and v["custom"] == item["custom"])
        student, _ = launched(lms, user="stu-crash", course="c-505", link=link)
        lms.fail_scores = 10**6  # the LMS is down
        drill_attempt(tool, student)
        eventually(lambda: lms.fail_scores < 10**6)  # the tool tried, and failed
    finally:
        proc.kill()  # no clean shutdown: whatever was owed is only in the database
        proc.wait(10)
    assert not [s for s in lms.scores if s["userId"] == "stu-crash"]
    lms.fail_scores = 0
    proc, _same = start_server(data, port=urlsplit(tool).port, **env)  # where the LMS knows the tool
    try:
        score = eventually(lambda: [s for s in lms.scores if s["userId"] == "stu-crash"], seconds=60)[-1]
        assert score["scoreGiven"] == 1.0
    finally:
        proc.terminate()
        proc.wait(10)
        stop_lms(lms)


def forged_launch(tool: str, lms, **forgery) -> tuple[httpx.Response, httpx.Client]:
    """A launch at the tool with this browser's own state and nonce, its id_token forged."""
    client = browser()
    asked = at_authorization(lms, client, user="mallory", role="instructor", course="c-evil")
    token = lms.mint_id_token(nonce=asked["nonce"], user="mallory", role="instructor", course="c-evil", **forgery)
    return client.post(f"{tool}/lti/launch", data={"id_token": token, "state": asked["state"]}, headers=JSON), client


@pytest.mark.parametrize(
    "forgery, why",
    [
        pytest.param({"key": "other"}, "Signature verification failed", id="signed-by-another-key"),
        pytest.param({"exp_in": -120}, "Signature has expired", id="expired"),
        pytest.param({"aud": "another-tool"}, "not registered", id="wrong-audience"),
        pytest.param({"iss": "https://lms.evil.example"}, "not registered", id="wrong-issuer"),
        pytest.param({"deployment_id": "deployment-666"}, "Unable to find deployment", id="unknown-deployment"),
    ],
)
def test_a_forged_launch_signs_no_one_in_and_changes_nothing(tool, lms, forgery, why):
    before = world(tool)
    forgery = {**forgery, "key": other_key()} if forgery.get("key") == "other" else forgery
    refused, client = forged_launch(tool, lms, **forgery)
    assert refused.status_code == 403 and why in refused.json()["error"], refused.text[:300]
    assert "cc_teacher" not in refused.headers.get("set-cookie", "")
    assert client.get(f"{tool}/teach/classes", headers=JSON).status_code == 401
    assert world(tool) == before


def test_a_replayed_launch_is_refused_whoever_sends_it(tool, lms):
    client = browser()
    asked = at_authorization(lms, client, user="stu-replay", course="c-606")
    token = lms.mint_id_token(nonce=asked["nonce"], user="stu-replay", course="c-606")
    form = {"id_token": token, "state": asked["state"]}
    first = client.post(f"{tool}/lti/launch", data=form)
    assert first.status_code == 303, first.text[:300]
    before = world(tool)
    assert client.post(f"{tool}/lti/launch", data=form).status_code == 403  # the same browser again
    stranger = browser()  # another browser: it has no state cookie at all
    stranger.cookies.update({k: v for k, v in client.cookies.items() if k != "cc_learner"})
    assert stranger.post(f"{tool}/lti/launch", data=form).status_code == 403
    assert browser().post(f"{tool}/lti/launch", data=form).status_code == 403
    assert world(tool) == before


def test_a_launch_without_its_state_or_with_a_nonce_never_issued_is_refused(tool, lms):
    client = browser()
    asked = at_authorization(lms, client, user="stu-x", course="c-707")
    made_up = lms.mint_id_token(nonce="nonce-the-tool-never-issued", user="stu-x", course="c-707")
    assert client.post(f"{tool}/lti/launch", data={"id_token": made_up, "state": asked["state"]}).status_code == 403
    right = lms.mint_id_token(nonce=asked["nonce"], user="stu-x", course="c-707")
    assert client.post(f"{tool}/lti/launch", data={"id_token": right, "state": "state-made-up"}).status_code == 403
    assert client.post(f"{tool}/lti/launch", data={"state": asked["state"]}).status_code == 403
    garbage = client.post(f"{tool}/lti/launch", data={"id_token": "a.b.c", "state": asked["state"]})
    assert garbage.status_code == 403
    login = browser().get(f"{tool}/lti/login?" + urlencode({"iss": "https://unknown.example", "login_hint": "x"}))
    assert login.status_code == 403 and "LTI" in login.text


def test_a_pick_is_its_own_instructors_and_a_wrong_one_is_shown_again(tool, lms):
    returned = len(lms.deep_links)
    client, picker = launched(lms, user="prof-own", role="instructor", course="c-808", kind="deep")
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', picker.text))
    wrong = client.post(
        f"{tool}/lti/deep-link",
        data={**fields, "snippet": "no-such-snippet", "due": "2099-01-01"},
        headers={"origin": tool},
    )
    assert wrong.status_code == 422 and 'aria-invalid="true"' in wrong.text and fields["launch_id"] in wrong.text
    other, other_picker = launched(lms, user="prof-other", role="instructor", course="c-909", kind="deep")
    their = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', other_picker.text))
    form = {**their, "launch_id": fields["launch_id"], "snippet": SNIPPET, "due": "2099-01-01"}
    stolen = other.post(f"{tool}/lti/deep-link", data=form, headers={"origin": tool})
    assert stolen.status_code == 403  # another instructor's launch
    assert len(lms.deep_links) == returned  # nothing went back to the LMS
