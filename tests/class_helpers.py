"""What the class tests share: a teacher and learners on one app, and the class figures recounted
the plain way, from every attempt row (what the counters must equal)."""

import asyncio
import secrets
from collections import Counter, defaultdict

from sqlalchemy import select

from app.db.tables import attempts
from app.memory.record import RECALLED
from tests.helpers import drill_form
from tests.site_client import SiteClient
from tests.teach_helpers import TOKEN

SNIPPET = "mlm-online-softmax"


def teacher(app, name: str = "王老师") -> tuple[SiteClient, str]:
    """A signed-in teacher client and its CSRF token."""
    client = SiteClient(app)
    assert client.post("/teach/login", data={"token": TOKEN, "name": name}, follow_redirects=False).status_code == 303
    page = client.get("/teach/classes").text
    return client, page.split('name="csrf" value="')[1].split('"')[0]


def make_class(client: SiteClient, csrf: str, code: str, name: str = "") -> None:
    response = client.post("/teach/classes", data={"csrf": csrf, "code": code, "name": name}, follow_redirects=False)
    assert response.status_code == 303, response.text[:300]


def learner(app, code: str | None = None, name: str = "") -> SiteClient:
    client = SiteClient(app)
    if code:
        assert client.post(f"/join/{code}", follow_redirects=False).status_code == 303
    if name:
        client.post("/me/profile", data={"name": name, "class_code": code or ""}, follow_redirects=False)
    return client


def submit(client: SiteClient, seed: int = 1, wrong: dict | None = None, rate: int = 30, **extra) -> dict:
    """Submit a mask with every answer right except `wrong` {key: text}; the result as JSON."""
    form = drill_form(client.app, SNIPPET, rate, seed)
    form.update(wrong or {}, **extra)
    response = client.post(f"/s/{SNIPPET}/drill", data=form, headers={"accept": "application/json"})
    assert response.status_code == 200, response.text[:300]
    return response.json()


def write_at(store, record, at) -> None:
    """One attempt through the store's group commit, dated `at` (for date ranges)."""
    asyncio.run(store.writer.write((secrets.randbelow(2**62) + 1, record, at)))


def plain_figures(
    engine, snippet_id: str, version: str, code: str | None = None, start: str | None = None, end: str | None = None
) -> dict:
    """The figures from every attempt row (the slow, obvious way)."""
    query = select(attempts).where(attempts.c.snippet_id == snippet_id, attempts.c.version == version)
    if code is not None:
        query = query.where(attempts.c.class_code == (code or None))
    with engine.connect() as db:
        rows = [
            r
            for r in db.execute(query)
            if (not start or r.created_at.date().isoformat() >= start)
            and (not end or r.created_at.date().isoformat() <= end)
        ]
    recalls = [r for r in rows if not r.practice and r.blanks]
    accuracy = [sum(b["state"] in RECALLED for b in r.blanks) / len(r.blanks) for r in recalls]
    seen, missed, given = Counter(), Counter(), defaultdict(Counter)
    for r in recalls:
        for b in r.blanks:
            first, last = (b["span"], b["span"]) if isinstance(b["span"], int) else b["span"]
            for span in range(first, last + 1):
                seen[span] += 1
                missed[span] += b["state"] not in RECALLED
            if b["state"] in ("wrong", "accepted", "unproven") and b["given"].strip():
                given[(first, last, b["state"])][b["given"].strip()] += 1
    return {
        "attempts": len(rows),
        "learners": len({r.learner for r in rows}),
        "recalls": len(recalls),
        "accuracy": round(sum(accuracy) / len(accuracy), 4) if accuracy else None,
        "heat": {str(s): {"seen": seen[s], "missed": missed[s]} for s in sorted(seen)},
        "given": given,
    }


def answers_of(stats: dict) -> dict:
    """The page's answers in plain_figures' shape (top answers only: every one when few)."""
    out = defaultdict(Counter)
    for blank in stats["tokens"]:
        for state in ("wrong", "accepted", "unproven"):
            for a in blank[state]:
                out[(blank["first"], blank["last"], state)][a["given"]] = a["count"]
    return out
