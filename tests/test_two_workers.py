"""Two workers on one database: what one commits, the other serves within a second."""

import time

import pytest

from app.main import create_app
from app.settings import Settings
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.server

BEARER = {"authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"}


def worker(tmp_path, name: str, url: str) -> SiteClient:
    return SiteClient(
        create_app(
            Settings(
                data_dir=tmp_path / name,
                database_url=url,
                execution=False,
                use_cdn=False,
                teacher_token=TOKEN,
                sync_seconds=0.1,
            )
        )
    )


def eventually(check, seconds: float = 1.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_uploads_edits_publishing_and_deletes_reach_the_other_worker(tmp_path, database_url):
    with worker(tmp_path, "a", database_url) as a, worker(tmp_path, "b", database_url) as b:
        assert a.put("/api/snippets/square", content=snippet_text("One").encode(), headers=BEARER).status_code == 201
        a.post("/api/snippets/square/publish", headers=BEARER)
        assert eventually(lambda: "One" in b.get("/s/square").text)
        a.put("/api/snippets/square", content=snippet_text("Two").encode(), headers=BEARER)
        assert eventually(lambda: "Two" in b.get("/s/square").text)
        a.post("/api/snippets/square/unpublish", headers=BEARER)
        assert eventually(lambda: b.get("/s/square").status_code == 404)
        b.post("/api/snippets/square/publish", headers=BEARER)
        assert eventually(lambda: a.get("/s/square").status_code == 200)
        a.delete("/api/snippets/square", headers={"authorization": f"Bearer {TOKEN}"})
        assert eventually(lambda: b.get("/api/snippets/square", headers=BEARER).status_code == 404)


def test_a_sync_never_undoes_a_newer_local_change(tmp_path, database_url):
    with worker(tmp_path, "a", database_url) as a:
        catalog = a.app.state.catalog
        a.put("/api/snippets/square", content=snippet_text("One").encode(), headers=BEARER)
        since = catalog._generation
        stale = catalog._read_changes()  # nothing to take yet
        read_before_edit = [("show", "square", a.app.state.library.get("square"), False)]
        a.put("/api/snippets/square", content=snippet_text("Two").encode(), headers=BEARER)
        assert stale == [] and catalog._apply(read_before_edit, since) == 0
        assert a.app.state.library.get("square").title == "Two"
