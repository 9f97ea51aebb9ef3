"""Signing in as a teacher and building snippet texts for the teacher-area tests."""

import io
import re
import zipfile

TOKEN = "teacher-secret-token"

SNIPPET = """---
title: {title}
summary: 平方的测试片段
level: 1
---

Prose {prose}

```python
def square(x):
    return {{{{c1::x * x::乘以自己}}}}
```

```python check
assert square(3) == 9, "square 不对"
```
"""


def snippet_text(title: str = "Square", prose: str = "$x^2$", check: str | None = None) -> str:
    text = SNIPPET.format(title=title, prose=prose)
    return text if check is None else text.replace('assert square(3) == 9, "square 不对"', check)


def login(client) -> str:
    response = client.get(f"/teach/login?token={TOKEN}", follow_redirects=False)
    assert response.status_code == 303
    return csrf(client)


def csrf(client) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get("/teach").text).group(1)


def upload(client, token: str, text: str, snippet_id: str = "square", **extra):
    return client.post("/teach/new", data={"csrf": token, "id": snippet_id, "text": text, **extra})


def stored_text(app, snippet_id: str = "square") -> str | None:
    """The current text of an uploaded snippet as the database holds it (None: not uploaded)."""
    rows = app.state.catalog.rows
    current = rows.index().get(snippet_id)
    return rows.source(snippet_id, current[0]) if current else None


def archive(files: dict[str, str]) -> bytes:
    """A course as a zip: each file in a `course/` folder."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, text in files.items():
            zipped.writestr(f"course/{name}", text)
    return out.getvalue()
