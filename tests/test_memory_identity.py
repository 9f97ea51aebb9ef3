"""A learner is a random id in a signed cookie: forged, tampered or foreign ids are never trusted."""

import os
import re

import pytest
from itsdangerous import Signer

from app.main import create_app
from app.settings import Settings
from tests.helpers import attempts_of as stored_attempts
from tests.memory_helpers import learner_of, practise, send_cookie
from tests.site_client import SiteClient

pytestmark = pytest.mark.app


def attempts_of(client, learner):
    return stored_attempts(client.app.state.store, learner)


def test_a_submission_gets_a_signed_id_that_carries_over(client):
    practise(client, seed=1)
    learner = learner_of(client)
    assert learner and re.fullmatch(r"[0-9a-f]{32}", learner)
    assert client.cookies.get("cc_learner") != learner  # the cookie is the signed value, not the bare id
    practise(client, seed=2)
    assert learner_of(client) == learner and len(attempts_of(client, learner)) == 2


def test_an_unsigned_id_is_replaced_not_trusted(client):
    practise(client, seed=1)
    victim = learner_of(client)
    attacker = SiteClient(client.app)
    send_cookie(attacker, victim)  # the bare id, as the old cookie carried it
    assert victim not in attacker.get("/me").text
    me = attacker.get("/me", headers={"accept": "application/json"}).json()
    assert me["snippets"] == [] and me["due"] == []
    practise(attacker, seed=3)
    assert learner_of(attacker) not in (None, victim)
    assert len(attempts_of(client, victim)) == 1  # nothing was written into the victim's history


def test_a_tampered_or_foreign_signature_is_replaced(client):
    practise(client, seed=1)
    victim, signed = learner_of(client), client.cookies.get("cc_learner")
    learner_part, signature = signed.rsplit(".", 1)
    # the signature's first character: a last one may only carry base64 padding bits
    flipped = f"{learner_part}.{'B' if signature[0] == 'A' else 'A'}{signature[1:]}"
    foreign = Signer("some-other-key", salt="learner-id").sign(victim).decode()
    other = "0" * 32 + signed[32:]  # another id under the victim's signature
    for cookie in (flipped, foreign, other):
        attacker = SiteClient(client.app)
        send_cookie(attacker, cookie)
        assert attacker.get("/me", headers={"accept": "application/json"}).json()["snippets"] == []
        assert learner_of(attacker) is None
        practise(attacker, seed=4)
        assert learner_of(attacker) not in (None, victim)
    assert len(attempts_of(client, victim)) == 1


def test_the_device_link_restores_the_id_and_rotating_it_voids_the_old_one(client):
    practise(client, seed=1)
    learner = learner_of(client)
    link = client.get("/me", headers={"accept": "application/json"}).json()["link"]
    path = link.split("testserver", 1)[1]
    phone = SiteClient(client.app)
    asked = phone.get(path)
    assert asked.status_code == 200 and f'action="{path}"' in asked.text and learner_of(phone) is None
    response = phone.post(path, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/me"
    assert learner_of(phone) == learner
    assert "在线 Softmax" in phone.get("/me").text
    assert client.post("/me/link", follow_redirects=False).status_code == 303
    new_link = client.get("/me", headers={"accept": "application/json"}).json()["link"]
    assert new_link != link
    stranger = SiteClient(client.app)
    assert stranger.get(path).status_code == 404 and stranger.post(path).status_code == 404
    assert learner_of(stranger) is None
    assert stranger.post(new_link.split("testserver", 1)[1], follow_redirects=False).status_code == 303
    assert learner_of(stranger) == learner
    assert SiteClient(client.app).get("/me/continue/not-a-token").status_code == 404


def test_another_site_cannot_switch_a_browser_to_its_learner(client):
    practise(client, seed=1)
    path = client.get("/me", headers={"accept": "application/json"}).json()["link"].split("testserver", 1)[1]
    victim = SiteClient(client.app)
    response = victim.post(path, headers={"origin": "https://evil.example"}, follow_redirects=False)
    assert response.status_code == 403 and learner_of(victim) is None


def test_without_a_configured_key_learners_survive_a_restart(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", execution=False, use_cdn=False)
    with SiteClient(create_app(settings)) as first:
        practise(first, seed=1)
        cookie, learner = first.cookies.get("cc_learner"), learner_of(first)
    key_file = tmp_path / "data" / "secret_key"
    assert oct(os.stat(key_file).st_mode & 0o777) == "0o600"
    with SiteClient(create_app(settings)) as second:
        send_cookie(second, cookie)
        assert learner_of(second) == learner
        assert second.get("/me", headers={"accept": "application/json"}).json()["snippets"][0]["attempts"] == 1


def test_a_configured_key_is_used_and_other_keys_do_not_verify(tmp_path):
    one = create_app(Settings(data_dir=tmp_path / "a", execution=False, use_cdn=False, secret_key="k" * 40))
    two = create_app(Settings(data_dir=tmp_path / "b", execution=False, use_cdn=False, secret_key="j" * 40))
    assert not (tmp_path / "a" / "secret_key").exists()
    cookie = one.state.identity.cookie_value("a" * 32)
    assert one.state.identity.learner_from(cookie) == "a" * 32
    assert two.state.identity.learner_from(cookie) is None
