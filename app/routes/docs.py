"""/docs: the JSON API's reference (Swagger UI), its script and styles served from static/ like
every other asset, so it works offline too."""
from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from ..assets import SWAGGER_CSS, SWAGGER_JS

router = APIRouter()


@router.get("/docs", include_in_schema=False)
async def api_docs(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(openapi_url=request.app.openapi_url, title="codecloze API",
                               swagger_js_url=f"/static/{SWAGGER_JS.path}",
                               swagger_css_url=f"/static/{SWAGGER_CSS.path}", swagger_favicon_url="/favicon.ico")
