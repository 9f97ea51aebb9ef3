"""Which language a request is answered in: `?lang=`, else the remembered choice (cookie), else
the browser's `Accept-Language`, else the operator's default (CODECLOZE_LANGUAGE).

A `?lang=` choice is remembered in a cookie, so the switch on every page is a plain link.
"""

import re
from functools import lru_cache

from app import i18n
from app.i18n import supported
from app.web.templating import q_value

COOKIE = "lang"
COOKIE_SECONDS = 365 * 24 * 3600
# Only this one cookie's value is wanted: a match costs a tenth of parsing the whole header.
_COOKIE_VALUE = re.compile(rb'(?:^|;)\s*lang="?([A-Za-z_-]{1,16})')


@lru_cache(maxsize=512)
def accepted(header: str) -> str | None:
    """The offered language the header ranks highest (q-values count; ties keep header order)."""
    best, best_q = None, 0.0
    for part in header.split(",")[:32]:
        tag, *params = (p.strip() for p in part.split(";"))
        language, q = supported(tag), q_value(params)
        if language and q > best_q:
            best, best_q = language, q
    return best


def chosen(query: str | None, cookie: str | None, accept: str | None, default: str) -> str:
    return supported(query) or supported(cookie) or (accept and accepted(accept)) or default


class LanguageMiddleware:
    """Sets the request's language before any route, error handler or template runs."""

    def __init__(self, app, default: str):
        self.app = app
        self.default = default

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            return await self.app(scope, receive, send)
        query = _query_lang(scope["query_string"])
        headers = dict(_wanted_headers(scope["headers"]))
        cookie = _cookie(headers.get(b"cookie"))
        i18n.set_language(chosen(query, cookie, headers.get(b"accept-language", b"").decode("latin-1"), self.default))
        remember = supported(query)
        remember = remember if remember and remember != cookie else None

        async def with_headers(message):
            if message["type"] == "http.response.start":
                extra = [(b"vary", b"Accept-Language, Cookie")]
                if remember:
                    extra.append(
                        (b"set-cookie", f"{COOKIE}={remember}; Max-Age={COOKIE_SECONDS}; Path=/; SameSite=Lax".encode())
                    )
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _wanted_headers(headers):
    return ((k, v) for k, v in headers if k in (b"cookie", b"accept-language"))


def _query_lang(query: bytes) -> str | None:
    if b"lang=" not in query:
        return None  # the usual case: no parsing
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        if name == b"lang":
            return value.decode("latin-1")
    return None


def _cookie(header: bytes | None) -> str | None:
    found = _COOKIE_VALUE.search(header) if header and b"lang=" in header else None
    return found.group(1).decode() if found else None
