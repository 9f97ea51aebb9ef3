"""The client's address: the socket's peer, or a trusted proxy's X-Forwarded-For entries only."""

import pytest
from pydantic import ValidationError

from app.settings import Settings, proxy_networks, wrong_settings
from app.web.client_address import client_address

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
