"""Shared request dependencies: the app's singletons and the learner's anonymous id."""
import secrets

from fastapi import Request, Response

from .errors import UserError
from .i18n import _
from .settings import Settings
from .snippets.library import SnippetLibrary
from .snippets.model import Snippet
from .store import Store

LEARNER_COOKIE = "cc_learner"


def settings(request: Request) -> Settings:
    return request.app.state.settings


def library(request: Request) -> SnippetLibrary:
    return request.app.state.library


def store(request: Request) -> Store:
    return request.app.state.store


def snippet_or_404(request: Request, snippet_id: str) -> Snippet:
    snippet = library(request).get(snippet_id)
    if snippet is None:
        raise UserError(404, _("没有找到片段 “%(id)s”。", id=snippet_id[:64]))
    return snippet


def learner_id(request: Request) -> str:
    cookie = request.cookies.get(LEARNER_COOKIE, "")
    return cookie if cookie.isalnum() and 16 <= len(cookie) <= 64 else secrets.token_hex(16)


def remember_learner(response: Response, learner: str) -> Response:
    response.set_cookie(LEARNER_COOKIE, learner, max_age=365 * 24 * 3600, httponly=True, samesite="lax")
    return response
