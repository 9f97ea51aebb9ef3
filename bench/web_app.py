"""The app as served, plus static pages exactly as large as the responses they stand beside
(bench only), one pair per masking unit. The submission forms are built here so the server and
the load agree on them."""

import os
import random
import secrets
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.learn.drills import mask_query, random_drill
from app.main import create_app
from app.settings import Settings
from tests.site_client import SiteClient

# The load's process signs the learner's cookie as the server does: one key for both (web_bench).
os.environ.setdefault("CODECLOZE_SECRET_KEY", secrets.token_urlsafe(32))
settings = Settings(data_dir=Path(os.environ.get("BENCH_DATA", tempfile.mkdtemp())), execution=False)
app = create_app(settings)
SNIPPET, RATE = "mlm-flash-forward", 20
UNITS = ("token", "span", "line")
HTMX = {"HX-Request": "true"}


def page_url(unit: str, seed: int) -> str:
    return f"/s/{SNIPPET}/drill?rate={RATE}&seed={seed}{mask_query(unit, ('names', 'literals', 'operators'))}"


def submission_form(unit: str, seed: int, rng: random.Random) -> dict:
    snippet = app.state.library.get(SNIPPET)
    holes = random_drill(snippet, RATE, seed, unit).holes
    # Every other blank right, the rest wrong in the learner's own words, so no two forms repeat
    # and both verdicts are rendered (for spans and lines, with their token diffs).
    answers = {h.key: h.answer if i % 2 else rng.choice(WRONG).format(rng.randrange(1000)) for i, h in enumerate(holes)}
    extra = {} if unit == "token" else {"unit": unit}
    return {"version": snippet.version, "rate": str(RATE), "seed": str(seed), **extra, **answers}


WRONG = ("m_{}", "x[{}]", "k_j * {}", "torch.max(s, {})", "{}", "(", "dim=-{}", "l_i + {}")
# Masks per unit, for the load and for sizing the twins (a short smoke run of a benchmark asks for fewer).
SAMPLES = int(os.environ.get("BENCH_SAMPLES", "200"))
_rng = random.Random(7)
BODIES = {unit: [urlencode(submission_form(unit, seed, _rng)) for seed in range(1, SAMPLES + 1)] for unit in UNITS}
# Returning learners' cookies (signed): one for the in-process benchmark, many for the load, so
# that concurrent submissions are of different learners, as on a class's server.
LEARNERS = tuple(app.state.identity.cookie_value(f"{n:032x}") for n in range(64))
LEARNER = LEARNERS[0]


def mean_sizes() -> tuple[dict, dict]:
    """Each unit's mean drill page and scored submission, in bytes. Measured on an app of its own,
    on data of its own: a test client's lifespan ends by stopping the background threads (the class
    counters' folder, the fitter) that the served app must keep, or its figures leave them out; and
    a second engine on the served app's SQLite file, in the same process, failed its writes with
    disk I/O errors a few seconds in (tried)."""
    pages_out, scored_out = {}, {}
    with tempfile.TemporaryDirectory() as scratch:
        sizing = Settings(data_dir=Path(scratch), execution=False)
        with SiteClient(create_app(sizing)) as client:
            for unit in UNITS:
                pages = [len(client.get(page_url(unit, seed)).content) for seed in range(1, min(SAMPLES, 20) + 1)]
                pages_out[unit] = b"x" * (sum(pages) // len(pages))
                sizes = [
                    len(
                        client.post(
                            f"/s/{SNIPPET}/drill",
                            content=body,
                            cookies={"cc_learner": LEARNER},
                            headers={**HTMX, "content-type": "application/x-www-form-urlencoded"},
                        ).content
                    )
                    for body in BODIES[unit]
                ]
                scored_out[unit] = b"x" * (sum(sizes) // len(sizes))
    return pages_out, scored_out


PAGE_BYTES, SCORED_BYTES = mean_sizes()


@app.get("/bench/static/{unit}")
async def static_page(unit: str) -> HTMLResponse:
    return HTMLResponse(PAGE_BYTES[unit])


@app.post("/bench/static/{unit}")
async def static_answer(request: Request, unit: str) -> HTMLResponse:
    await request.body()  # read like a submission is, answered like a static page
    return HTMLResponse(SCORED_BYTES[unit])
