"""Every error answered as a readable page, an htmx message or JSON: never a stack trace."""

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from app.errors import UserError
from app.web.errors import status_of
from app.web.templating import is_htmx, templates_of, wants_json

from ..i18n import _

log = logging.getLogger("codecloze")


def error_response(
    request: Request, status: int, message: str, details: list[str] = (), retry_after: int = 2
) -> Response:
    # Messages quote what was sent; text that is no valid Unicode is shown replaced, not re-raised.
    message = message.encode("utf-8", "replace").decode("utf-8")
    details = [d.encode("utf-8", "replace").decode("utf-8") for d in details]
    headers = {"Retry-After": str(retry_after)} if status == 503 else {}
    if wants_json(request) or request.url.path.startswith("/api/"):
        return JSONResponse({"error": message, "details": list(details)}, status_code=status, headers=headers)
    if is_htmx(request):
        # Shown above the form without replacing it, so typed answers survive.
        headers.update({"HX-Retarget": "#flash", "HX-Reswap": "innerHTML"})
    return templates_of(request).TemplateResponse(
        request,
        "error.html",
        {"status": status, "message": message, "details": details},
        status_code=status,
        headers=headers,
        block_name="message" if is_htmx(request) else None,
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(UserError)
    async def user_error(request: Request, exc: UserError) -> Response:
        return error_response(request, status_of(exc), exc.message, retry_after=getattr(exc, "retry_after", 2))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        messages = {404: _("页面不存在。"), 405: _("不支持这种请求方式。")}
        return error_response(request, exc.status_code, messages.get(exc.status_code, str(exc.detail)))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        details = [f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in exc.errors()]
        return error_response(request, 422, _("请求的参数不正确。"), details)

    @app.exception_handler(DBAPIError)
    async def database_error(request: Request, exc: DBAPIError) -> Response:
        # Writes are one transaction each: a refused one changed nothing, so the user may retry.
        log.warning(
            "database unavailable on %s %s: %s",
            request.method,
            request.url.path,
            str(exc.orig).splitlines()[0][:200] if exc.orig else exc,
        )
        request.app.state.store.writer.healthy = False  # a handler takes no dependencies
        return error_response(request, 503, _("数据库暂时无法使用，这次操作没有做任何更改。请稍后重试。"))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(request, 500, _("服务器内部出错了，我们已经记录下来。这次请求可能没有完成，请返回重试。"))
