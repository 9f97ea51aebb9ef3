"""The app as served, plus static pages exactly as large as the responses they stand beside
(bench only). The submission form is built here so the server and the load agree on it."""
import os
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.trainer import random_drill

settings = Settings(data_dir=Path(os.environ.get("BENCH_DATA", tempfile.mkdtemp())), execution=False)
app = create_app(settings)
PAGE_URL = "/s/mlm-flash-forward/drill?rate=20&seed=1"
HTMX = {"HX-Request": "true"}


def submission_form() -> dict:
    snippet = app.state.library.get("mlm-flash-forward")
    holes = random_drill(snippet, 20, 1).holes
    # Every other blank right, so both verdicts are rendered.
    answers = {h.key: (h.answer if i % 2 else "wrong") for i, h in enumerate(holes)}
    return {"version": snippet.version, "rate": "20", "seed": "1", **answers}


BODY = urlencode(submission_form())
with TestClient(app) as client:
    PAGE_BYTES = b"x" * len(client.get(PAGE_URL).content)
    SCORED_BYTES = b"x" * len(client.post("/s/mlm-flash-forward/drill", content=BODY, headers={
        **HTMX, "content-type": "application/x-www-form-urlencoded"}).content)


@app.get("/bench/static")
async def static_page() -> HTMLResponse:
    return HTMLResponse(PAGE_BYTES)


@app.post("/bench/static")
async def static_answer(request: Request) -> HTMLResponse:
    await request.body()  # read like a submission is, answered like a static page
    return HTMLResponse(SCORED_BYTES)
