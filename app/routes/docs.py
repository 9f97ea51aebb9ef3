"""/docs: the JSON API's reference (Swagger UI), its script and styles served from static/ like
every other asset, so it works offline too."""

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from app.web.assets import SWAGGER_CSS, SWAGGER_JS

router = APIRouter()


# Swagger UI's page made better for axe-core where a setting or a style can: a language, no
# links nested in the operations' buttons (deep links), and badges dark enough for white text.
# (Its "try it out" forms keep an unnamed <select>: that is Swagger UI's own markup.)
PARAMETERS = {"deepLinking": False}
BADGE_CSS = (
    "<style>.swagger-ui .info .title small pre { color: #fff; background: #55606e; }"
    " .swagger-ui .info .url { color: #1f4e79; }"
    " .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a5fa8; }"
    " .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #17734f; }"
    " .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }"
    " .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }</style>"
)


@router.get("/docs", include_in_schema=False)
async def api_docs(request: Request) -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title="codecloze API",
        swagger_js_url=f"/static/{SWAGGER_JS.path}",
        swagger_css_url=f"/static/{SWAGGER_CSS.path}",
        swagger_favicon_url="/favicon.ico",
        swagger_ui_parameters=PARAMETERS,
    )
    html = page.body.decode().replace("<html>", '<html lang="en">', 1).replace("</head>", BADGE_CSS + "</head>", 1)
    return HTMLResponse(html)
