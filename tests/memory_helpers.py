"""Helpers the learner-memory tests share: submitting drills as a learner, reading their memory."""

from sqlalchemy import select

from app.memory.tables import cards, tokens
from tests.helpers import drill_form

SNIPPET = "mlm-online-softmax"


def is_blank(key: str) -> bool:
    return key[:1] in "sc" and key[1:].isdigit()


def learner_of(client) -> str | None:
    return client.app.state.identity.learner_from(client.cookies.get("cc_learner"))


def practise(client, snippet_id: str = SNIPPET, rate: int = 30, seed: int = 1, wrong: int = 0, **extra):
    """Submit a drill with the first `wrong` blanks wrong; the blank keys that were wrong."""
    form = drill_form(client.app, snippet_id, rate, seed)
    missed = [k for k in form if is_blank(k)][:wrong]
    form.update({k: "nope" for k in missed}, **extra)
    response = client.post(f"/s/{snippet_id}/drill", data=form)
    assert response.status_code == 200, response.text[:300]
    return missed


def card_row(client, snippet_id: str = SNIPPET, item: str = ""):
    store = client.app.state.store
    with store.engine.connect() as db:
        return db.execute(
            select(cards).where(
                cards.c.learner == learner_of(client), cards.c.snippet_id == snippet_id, cards.c.item == item
            )
        ).first()


def token_rows(client, snippet_id: str = SNIPPET) -> dict:
    store = client.app.state.store
    with store.engine.connect() as db:
        return {
            r.span: r
            for r in db.execute(
                select(tokens).where(tokens.c.learner == learner_of(client), tokens.c.snippet_id == snippet_id)
            )
        }


def send_cookie(client, value: str) -> None:
    """Send `value` as the learner cookie, where the server's own Set-Cookie would replace it."""
    client.cookies.set("cc_learner", value, domain="testserver.local")
