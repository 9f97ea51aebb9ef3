"""Which language a request is answered in: `?lang=`, else the remembered choice (cookie), else
the browser's `Accept-Language` (negotiated by Babel), else the operator's default
(CODECLOZE_LANGUAGE).

A `?lang=` choice is remembered in a cookie, so the switch on every page is a plain link.
"""

from starlette.requests import HTTPConnection

from app import i18n
from app.i18n import supported
from app.web.accept import best_language

COOKIE = "lang"
COOKIE_SECONDS = 365 * 24 * 3600


def accepted(header: str) -> str | None:
    """The offered language the header ranks highest (q-values count; ties keep header order)."""
    return best_language(header, i18n.LANGUAGES)


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
        request = HTTPConnection(scope)
        query, cookie = request.query_params.get("lang"), request.cookies.get(COOKIE)
        i18n.set_language(chosen(query, cookie, request.headers.get("accept-language"), self.default))
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
