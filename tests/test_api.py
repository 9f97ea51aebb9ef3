"""The JSON API for teachers."""

import pytest

from app.settings import Settings
from tests.teach_helpers import TOKEN, snippet_text

pytestmark = pytest.mark.app

BEARER = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def settings(data_dir):
    return Settings(data_dir=data_dir, execution=False, use_cdn=False, teacher_token=TOKEN)


def put(client, text: str, snippet_id: str = "square"):
    return client.put(
        f"/api/snippets/{snippet_id}", content=text.encode(), headers={**BEARER, "content-type": "text/markdown"}
    )


def test_needs_the_bearer_token(client):
    assert client.get("/api/snippets").status_code == 401
    assert client.get("/api/snippets", headers={"authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/snippets", headers=BEARER).status_code == 200


def test_create_publish_edit_download_delete(client):
    created = put(client, snippet_text())
    assert created.status_code == 201 and created.json()["snippet"]["status"] == "draft"
    assert client.post("/api/snippets/square/publish", headers=BEARER).json()["status"] == "published"
    edited = put(client, snippet_text("Square 2"))
    assert edited.status_code == 200 and edited.json()["snippet"]["version"] != created.json()["snippet"]["version"]
    assert client.get("/api/snippets/square/file", headers=BEARER).content == snippet_text("Square 2").encode()
    assert {s["id"] for s in client.get("/api/snippets", headers=BEARER).json()} >= {"square", "mlm-online-softmax"}
    assert client.post("/api/snippets/square/unpublish", headers=BEARER).json()["status"] == "draft"
    assert client.delete("/api/snippets/square", headers=BEARER).json() == {"deleted": "square"}
    assert client.get("/api/snippets/square", headers=BEARER).status_code == 404


def test_invalid_files_get_every_problem_as_json(client):
    response = put(client, snippet_text().replace("level: 1\n", "").replace("```python check", "```text"))
    body = response.json()
    assert response.status_code == 422 and body["saved"] is False
    assert len(body["problems"]) >= 2 and all("message" in p for p in body["problems"])
    assert put(client, "x", "../etc").status_code in (404, 422)
    response = client.put("/api/snippets/bin", content=b"\x00\x01\x02", headers=BEARER)
    assert response.status_code == 422 and "二进制" in response.text


def test_bundled_snippets_cannot_be_changed(client):
    assert put(client, snippet_text(), "mlm-online-softmax").status_code == 403
    assert client.delete("/api/snippets/mlm-online-softmax", headers=BEARER).status_code == 403


def test_openapi_documents_the_teacher_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/api/snippets",
        "/api/snippets/{snippet_id}",
        "/api/snippets/{snippet_id}/file",
        "/api/snippets/{snippet_id}/publish",
        "/api/snippets/{snippet_id}/strength",
    } <= set(paths)
