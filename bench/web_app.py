"""The app as served, plus a static page of the same size to compare against (bench only)."""
import os
import tempfile
from pathlib import Path

from fastapi.responses import HTMLResponse
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings

settings = Settings(data_dir=Path(os.environ.get("BENCH_DATA", tempfile.mkdtemp())), execution=False)
app = create_app(settings)
with TestClient(app) as client:
    STATIC_PAGE = client.get("/s/mlm-flash-forward/drill?rate=20&seed=1").content


@app.get("/bench/static")
def static_page() -> HTMLResponse:
    return HTMLResponse(STATIC_PAGE)
