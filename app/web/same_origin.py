"""Only this site posts forms: a state-changing request must come from one of its own pages.

Browsers send `Origin` with every POST (the string "null" when a page hides it), and `Referer`
unless a policy drops it; both name the page that sent the form. A request naming another
origin is refused before the route runs, so it sets no cookie and changes no row. One that
names none is not a browser's cross-site form (no browser sends a POST without `Origin` to
another site), so scripts and API clients keep working; `Sec-Fetch-Site`, where a browser sends
it, is checked as well. The JSON API under /api authenticates with a Bearer token instead.
"""

from urllib.parse import urlsplit

from fastapi import Request

from app.web.errors import UserError

from ..i18n import _

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
EXEMPT_PREFIX = "/api/"  # Bearer token, never a cookie
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
    if method in SAFE_METHODS or path.startswith(EXEMPT_PREFIX):
        return None
    own = headers.get("host", "").lower()
    origin, referer = headers.get("origin"), headers.get("referer")
    if origin is not None:
        return None if _host_of(origin) == own else "origin"
    if referer is not None:
        return None if _host_of(referer) == own else "referer"
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in SAME_SITE_FETCH:
        return "sec-fetch-site"
    return None


async def same_origin(request: Request) -> None:
    """App-wide dependency: a cross-site POST gets a 403 in the page's language."""
    if refusal(request.method, request.url.path, request.headers) is not None:
        raise UserError(403, _("只能在本站的页面上提交这个表单。"))
