"""Only this site posts forms: a state-changing request must come from one of its own pages.

Browsers send `Origin` with every POST (the string "null" when a page hides it), and `Referer`
unless a policy drops it; both name the page that sent the form. A request naming another
origin, or naming none at all, is refused before the route runs, so it sets no cookie and changes
no row: a page of this site always names itself, and a request that names no page cannot show
it came from one. `Sec-Fetch-Site`, where a browser sends it, is checked as well. Scripts use the
JSON API under /api, which authenticates with a Bearer token instead. An LMS posts the two LTI
steps from its own origin; they are authenticated by the platform's signed id_token and a
one-time state bound to this browser's cookie (app/lti/adapters.py), not by a session.
"""

from urllib.parse import urlsplit

from fastapi import Request

from app.errors import Forbidden

from ..i18n import _

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
EXEMPT_PREFIX = "/api/"  # Bearer token, never a cookie
LMS_POSTS = frozenset({"/lti/login", "/lti/launch"})
SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # "none": typed or bookmarked by the user


def _host_of(url: str) -> str | None:
    """host[:port] of a URL as the browser wrote it, None when it names no origin ("null")."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return parts.netloc.lower() if parts.scheme in ("http", "https") and parts.netloc else None


def refusal(method: str, path: str, headers) -> str | None:
    """Why a request is not this site's own form (None: it may go on)."""
    if method in SAFE_METHODS or path.startswith(EXEMPT_PREFIX) or path in LMS_POSTS:
        return None
    origin, referer = headers.get("origin"), headers.get("referer")
    named, page = ("origin", origin) if origin is not None else ("referer", referer)
    if page is None:
        return "unnamed"
    if _host_of(page) != headers.get("host", "").lower():
        return named
    fetch_site = headers.get("sec-fetch-site")
    return None if fetch_site is None or fetch_site in SAME_SITE_FETCH else "sec-fetch-site"


async def same_origin(request: Request) -> None:
    """App-wide dependency: a cross-site POST gets a 403 in the page's language."""
    if refusal(request.method, request.url.path, request.headers) is not None:
        raise Forbidden(_("只能在本站的页面上提交这个表单。"))
