"""The client's address: the socket's peer, or a trusted proxy's X-Forwarded-For entries only; and
whether it came over HTTPS: the socket's scheme, or a trusted proxy's X-Forwarded-Proto only."""

from types import SimpleNamespace

import pytest
from pydantic import ValidationError
from starlette.requests import Request

from app.settings import Settings, proxy_networks, wrong_settings
from app.web.client_address import client_address, is_https, public_base

pytestmark = pytest.mark.unit

PROXY = proxy_networks("10.0.0.1, 192.168.0.0/16")


def test_without_trusted_proxies_the_header_is_ignored():
    assert client_address("127.0.0.1", ["6.6.6.6"], proxy_networks("")) == "127.0.0.1"
    assert client_address("203.0.113.5", ["6.6.6.6"], PROXY) == "203.0.113.5"  # a peer that is no proxy


def test_a_trusted_proxy_names_the_client_and_what_the_client_wrote_is_ignored():
    assert client_address("10.0.0.1", ["198.51.100.7"], PROXY) == "198.51.100.7"
    # The client claimed 6.6.6.6 itself; the proxy appended the address it saw.
    assert client_address("10.0.0.1", ["6.6.6.6, 198.51.100.7"], PROXY) == "198.51.100.7"
    # Two trusted proxies in a row: the rightmost entry that is not one of them.
    assert client_address("10.0.0.1", ["6.6.6.6, 198.51.100.7", "192.168.3.4"], PROXY) == "198.51.100.7"
    assert client_address("10.0.0.1", [], PROXY) == "10.0.0.1"
    assert client_address("10.0.0.1", ["not-an-address"], PROXY) == "10.0.0.1"


def test_a_wrong_setting_is_refused():
    with pytest.raises(ValidationError) as refused:
        Settings(trusted_proxies="10.0.0.1, nonsense")
    assert wrong_settings(refused.value) == [
        "CODECLOZE_TRUSTED_PROXIES='10.0.0.1, nonsense': 'nonsense' is not an address or network"
    ]


def request_from(peer: str, headers: dict[str, str], proxies: str = "", scheme: str = "http"):
    """A request as uvicorn hands it over, from `peer`, on an app trusting `proxies`."""
    app = SimpleNamespace(state=SimpleNamespace(settings=SimpleNamespace(trusted_proxies=proxies)))
    raw = [(k.lower().encode(), v.encode()) for k, v in {"host": "cc.example", **headers}.items()]
    scope = {"type": "http", "scheme": scheme, "server": ("cc.example", 80), "path": "/", "root_path": ""}
    return Request({**scope, "headers": raw, "client": (peer, 5000), "app": app, "query_string": b""})


def test_https_is_believed_from_the_socket_or_a_trusted_proxy_only():
    assert is_https(request_from("203.0.113.5", {}, scheme="https"))
    said = {"x-forwarded-proto": "https"}
    assert not is_https(request_from("203.0.113.5", said))  # anyone may write the header
    assert not is_https(request_from("203.0.113.5", said, proxies="10.0.0.1"))
    behind = request_from("10.0.0.1", said, proxies="10.0.0.0/8")
    assert is_https(behind) and public_base(behind) == "https://cc.example"
    assert not is_https(request_from("10.0.0.1", {"x-forwarded-proto": "https, http"}, proxies="10.0.0.0/8"))
    assert public_base(request_from("10.0.0.1", {}, proxies="10.0.0.0/8")) == "http://cc.example"
