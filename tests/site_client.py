"""A test client that posts as this site's own pages do: a browser names the page's origin on
every POST, and the app refuses a form that names no page of its own (app/web/same_origin.py)."""

from fastapi.testclient import TestClient

OWN_ORIGIN = "http://testserver"  # the test client's base URL and Host


class SiteClient(TestClient):
    def __init__(self, app, **kwargs):
        super().__init__(app, **kwargs)
        self.headers.setdefault("origin", OWN_ORIGIN)


def own_site(url: str, headers: dict | None = None) -> dict:
    """Headers for an HTTP client of a real server at `url`: its own origin first."""
    return {"origin": url, **(headers or {})}
