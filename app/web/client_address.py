"""The client's address, for fairness and login back-off: the socket's peer, or what a trusted
proxy says in `X-Forwarded-For`.

Only a peer listed in CODECLOZE_TRUSTED_PROXIES (addresses or networks, comma-separated;
default none) is believed, and only the entries it and other trusted proxies appended: the
address is the rightmost entry that is not itself a trusted proxy. Anything a client wrote
further left is its own claim and ignored. uvicorn must not rewrite the peer itself
(`--no-proxy-headers`), or any local process could claim any address.
"""

import ipaddress

from fastapi import Request

from app.settings import Network, proxy_networks


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(peer: str | None, forwarded: list[str], networks: tuple[Network, ...]) -> str | None:
    """peer: the socket's; forwarded: every X-Forwarded-For header's value, in order."""
    if peer is None or not networks or not _trusted(peer, networks):
        return peer
    hops = [hop.strip() for value in forwarded for hop in value.split(",")]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # a proxy that writes what is not an address is not followed further
    return peer


def of_request(request: Request) -> str | None:
    networks = proxy_networks(request.app.state.settings.trusted_proxies)  # Settings refused a wrong one
    peer = request.client.host if request.client else None
    return client_address(peer, request.headers.getlist("x-forwarded-for"), networks)


def is_https(request: Request) -> bool:
    """Whether the browser reached the site over HTTPS: the socket's scheme, or what a trusted
    proxy that terminates TLS says in `X-Forwarded-Proto` (the last value, the proxy's own)."""
    if request.url.scheme == "https":
        return True
    networks = proxy_networks(request.app.state.settings.trusted_proxies)
    peer = request.client.host if request.client else None
    if peer is None or not networks or not _trusted(peer, networks):
        return False
    said = [p.strip().lower() for value in request.headers.getlist("x-forwarded-proto") for p in value.split(",")]
    return bool(said) and said[-1] == "https"


def public_base(request: Request) -> str:
    """The site's address as the browser sees it (scheme and host), e.g. for URLs an LMS is given."""
    base = str(request.base_url).rstrip("/")
    return "https" + base[base.index(":") :] if is_https(request) and base.startswith("http:") else base
