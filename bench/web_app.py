"""The app as served, plus static pages exactly as large as the responses they stand beside
(bench only). The submission form is built here so the server and the load agree on it."""
import os
import random
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


def submission_form(seed: int, rng: random.Random) -> dict:
    snippet = app.state.library.get("mlm-flash-forward")
    holes = random_drill(snippet, 20, seed).holes
    # Every other blank right, the rest wrong in the learner's own words, so no two forms repeat
    # and both verdicts are rendered.
    answers = {h.key: h.answer if i % 2 else rng.choice(WRONG).format(rng.randrange(1000))
               for i, h in enumerate(holes)}
    return {"version": snippet.version, "rate": "20", "seed": str(seed), **answers}


WRONG = ("m_{}", "x[{}]", "k_j * {}", "torch.max(s, {})", "{}", "(", "dim=-{}", "l_i + {}")
_rng = random.Random(7)
BODIES = [urlencode(submission_form(seed, _rng)) for seed in range(1, 201)]
LEARNER = "b" * 32  # a returning learner's cookie
with TestClient(app) as client:
    PAGE_BYTES = b"x" * len(client.get(PAGE_URL).content)
    sizes = [len(client.post("/s/mlm-flash-forward/drill", content=body, cookies={"cc_learner": LEARNER}, headers={
        **HTMX, "content-type": "application/x-www-form-urlencoded"}).content) for body in BODIES]
    SCORED_BYTES = b"x" * (sum(sizes) // len(sizes))


@app.get("/bench/static")
async def static_page() -> HTMLResponse:
    return HTMLResponse(PAGE_BYTES)


@app.post("/bench/static")
async def static_answer(request: Request) -> HTMLResponse:
    await request.body()  # read like a submission is, answered like a static page
    return HTMLResponse(SCORED_BYTES)
