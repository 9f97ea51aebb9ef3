"""tests/lms.py, the LMS of the LTI tests, against a tiny fake tool written here: a launch a browser
walks through, id_tokens it mints and their forgeries, the token endpoint, scores and the failure
switch, and a deep linking round trip."""

import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Form
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from tests.live import ThreadedServer
from tests.lms import CLAIM, DL_CLAIM, LMS, ROLES, SCORE_TYPE, start_lms, stop_lms

pytestmark = pytest.mark.server

TOOL_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
TOOL_PEM = TOOL_KEY.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
).decode()
TOOL_KID = "tool-key-1"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
PICKED = {
    "type": "ltiResourceLink",
    "title": "Exercise 1",
    "custom": {"exercise": "e1"},
    "lineItem": {"scoreMaximum": 10, "label": "Exercise 1", "resourceId": "e1"},
}


def fake_tool(app: FastAPI, url: str, lms: LMS) -> None:
    """Just enough of a tool: its key set, the OIDC login, and a launch that checks the id_token
    with PyJWT against the LMS's key set; it answers a deep linking request by picking PICKED."""
    nonces: dict[str, str] = {}
    platform_keys = jwt.PyJWKClient(lms.registration["key_set_url"])

    @app.get("/lti/jwks")
    def jwks():
        key = jwt.algorithms.RSAAlgorithm.to_jwk(TOOL_KEY.public_key(), as_dict=True)
        return {"keys": [{**key, "kid": TOOL_KID, "alg": "RS256", "use": "sig"}]}

    @app.get("/lti/login")
    def login(iss: str, login_hint: str, lti_message_hint: str, client_id: str):
        state, nonce = secrets.token_urlsafe(8), secrets.token_urlsafe(8)
        nonces[state] = nonce
        auth = {
            **{"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none"},
            **{"client_id": client_id, "redirect_uri": url + "/lti/launch", "state": state, "nonce": nonce},
            **{"login_hint": login_hint, "lti_message_hint": lti_message_hint},
        }
        return RedirectResponse(f"{lms.registration['auth_login_url']}?{urlencode(auth)}", status_code=302)

    @app.post("/lti/launch")
    def launch(id_token: str = Form(), state: str = Form()):
        key = platform_keys.get_signing_key_from_jwt(id_token).key
        claims = jwt.decode(id_token, key, algorithms=["RS256"], audience=lms.client_id, issuer=lms.url)
        assert claims["nonce"] == nonces.pop(state)
        if claims[CLAIM + "message_type"] == "LtiDeepLinkingRequest":
            return HTMLResponse(picked_form(claims))
        return JSONResponse(claims)


def picked_form(request: dict) -> str:
    """The auto-submitting form carrying the deep linking response."""
    settings = request[DL_CLAIM + "deep_linking_settings"]
    now = int(time.time())
    response = {
        "iss": request["aud"],
        "aud": request["iss"],
        "iat": now,
        "exp": now + 300,
        "nonce": secrets.token_urlsafe(8),
        CLAIM + "deployment_id": request[CLAIM + "deployment_id"],
        CLAIM + "message_type": "LtiDeepLinkingResponse",
        CLAIM + "version": "1.3.0",
        DL_CLAIM + "data": settings["data"],
        DL_CLAIM + "content_items": [PICKED],
    }
    signed = jwt.encode(response, TOOL_PEM, "RS256", headers={"kid": TOOL_KID})
    return (
        f'<form id="f" action="{settings["deep_link_return_url"]}" method="post">'
        f'<input type="hidden" name="JWT" value="{signed}"></form>'
        '<script>document.getElementById("f").submit()</script>'
    )


@pytest.fixture(scope="module")
def lms():
    app = FastAPI()
    tool = ThreadedServer(app)
    lms = start_lms(tool.url)
    fake_tool(app, tool.url, lms)
    with tool:
        yield lms
    stop_lms(lms)


def launched(lms: LMS, **launch) -> httpx.Response:
    """A browser's walk from the LMS's launch page to the last page."""
    with httpx.Client(timeout=30) as browser:
        return lms.follow(browser, browser.get(lms.login_url(**launch)))


def assertion(lms: LMS, **changes) -> str:
    """A client_credentials assertion signed with the tool's key."""
    now = int(time.time())
    claims = {"iss": lms.client_id, "sub": lms.client_id, "aud": lms.registration["auth_token_url"]}
    claims |= {"iat": now, "exp": now + 60, "jti": secrets.token_urlsafe(8), **changes}
    return jwt.encode(claims, TOOL_PEM, "RS256", headers={"kid": TOOL_KID})


def token_request(lms: LMS, signed: str, scope: str) -> httpx.Response:
    return httpx.post(
        lms.registration["auth_token_url"],
        data={
            "grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": signed,
            "scope": scope,
        },
    )


def test_a_launch_reaches_the_tool_with_an_id_token_it_checks(lms):
    start = httpx.get(lms.login_url(user="ana", role="instructor", course="c-launch", name="Ana", email="a@x.org"))
    assert start.status_code == 302
    login = urlsplit(start.headers["location"])
    assert f"{login.scheme}://{login.netloc}{login.path}" == lms.tool + "/lti/login"
    assert parse_qs(login.query).keys() >= {"iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id"}

    claims = launched(lms, user="ana", role="instructor", course="c-launch", name="Ana", email="a@x.org").json()
    assert (claims["sub"], claims["name"], claims["email"]) == ("ana", "Ana", "a@x.org")
    assert claims[CLAIM + "roles"] == [ROLES["instructor"]]
    assert claims[CLAIM + "context"]["id"] == "c-launch"
    assert claims[CLAIM + "resource_link"]["id"] == "link-1"
    assert claims[CLAIM + "deployment_id"] == lms.deployment_id
    link = lms.links["c-launch", "link-1"]
    assert claims[AGS_CLAIM]["lineitem"] == lms.lineitems[link["lineitem"]]["id"]


def test_minted_id_tokens_check_against_the_jwks_and_forgeries_do_not(lms):
    keys = jwt.PyJWKClient(lms.registration["key_set_url"])

    def check(token: str) -> dict:
        key = keys.get_signing_key_from_jwt(token).key
        return jwt.decode(token, key, algorithms=["RS256"], audience=lms.client_id, issuer=lms.url)

    assert check(lms.mint_id_token(nonce="n1", course="c-mint"))["nonce"] == "n1"
    with pytest.raises(jwt.InvalidSignatureError):
        check(lms.mint_id_token(nonce="n2", course="c-mint", key=TOOL_PEM))
    with pytest.raises(jwt.ExpiredSignatureError):
        check(lms.mint_id_token(nonce="n3", course="c-mint", exp_in=-10))
    with pytest.raises(jwt.InvalidAudienceError):
        check(lms.mint_id_token(nonce="n4", course="c-mint", aud="someone-else"))
    deep = check(lms.mint_id_token(nonce="n5", course="c-mint", kind="deep"))
    assert deep[CLAIM + "message_type"] == "LtiDeepLinkingRequest"
    assert deep[DL_CLAIM + "deep_linking_settings"]["deep_link_return_url"] == lms.url + "/deep-link-return"


def test_a_tool_key_buys_a_token_and_scores_are_recorded_unless_the_switch_fails_them(lms):
    lms.mint_id_token(nonce="n", user="bo", course="c-score")
    item = lms.links["c-score", "link-1"]["lineitem"]
    scores_url = lms.lineitems[item]["id"] + "/scores"
    signed, issued = assertion(lms), lms.tokens_issued
    answer = token_request(lms, signed, "https://purl.imsglobal.org/spec/lti-ags/scope/score")
    assert answer.status_code == 200 and lms.tokens_issued == issued + 1
    assert token_request(lms, signed, "https://purl.imsglobal.org/spec/lti-ags/scope/score").status_code == 400
    assert (
        token_request(
            lms, assertion(lms, aud=lms.url), "https://purl.imsglobal.org/spec/lti-ags/scope/score"
        ).status_code
        == 400
    )

    score = {"userId": "bo", "scoreGiven": 7, "scoreMaximum": 10, "activityProgress": "Completed"}
    score |= {"gradingProgress": "FullyGraded", "timestamp": "2025-01-01T00:00:00+00:00"}
    bearer = {"Authorization": f"Bearer {answer.json()['access_token']}", "Content-Type": SCORE_TYPE}
    assert httpx.post(scores_url, json=score, headers={"Content-Type": SCORE_TYPE}).status_code == 401
    lms.fail_scores = 1
    assert httpx.post(scores_url, json=score, headers=bearer).status_code == 503
    assert lms.fail_scores == 0
    assert httpx.post(scores_url, json=score, headers=bearer).status_code == 200
    assert lms.scores[-1] == {"lineitem": item, **score}
    assert httpx.post(scores_url, json={**score, "userId": "stranger"}, headers=bearer).status_code == 400


def test_a_deep_linking_response_adds_a_link_with_its_line_item(lms):
    received = launched(lms, user="cy", role="instructor", course="c-deep", kind="deep")
    assert "Deep link received" in received.text
    assert lms.deep_links[-1] == [PICKED]
    link = next(link for (course, _), link in lms.links.items() if course == "c-deep")
    assert lms.lineitems[link["lineitem"]]["scoreMaximum"] == 10

    claims = launched(lms, user="di", course="c-deep", link=link["id"]).json()
    assert claims[CLAIM + "custom"] == {"exercise": "e1"}
    assert claims[AGS_CLAIM]["lineitem"] == lms.lineitems[link["lineitem"]]["id"]


def test_the_auth_endpoint_refuses_what_a_platform_would(lms):
    start = httpx.get(lms.login_url(user="ed", course="c-auth"))
    hint = parse_qs(urlsplit(start.headers["location"]).query)["lti_message_hint"][0]
    good = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none"}
    good |= {"client_id": lms.client_id, "redirect_uri": lms.tool + "/lti/launch", "state": "s", "nonce": "n"}
    good |= {"login_hint": "ed", "lti_message_hint": hint}
    auth = lms.registration["auth_login_url"]
    assert httpx.get(auth, params=good).status_code == 200
    for wrong in ({"redirect_uri": "http://evil/launch"}, {"client_id": "x"}, {"login_hint": "other"}, {"prompt": ""}):
        assert httpx.get(auth, params={**good, **wrong}).status_code == 400, wrong
