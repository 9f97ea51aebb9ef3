"""One paired run through HTTP: a real uvicorn under libfaketime, the clock moved per session.

The random learner drills /s/<id>/drill?rate=…&seed=…, the review learner follows
/s/<id>/review?rate=… to the URL that holds its mask; both answer from the same FSRS-6
ground truth and the same draws as bench/learning/sim.py. After each review redirect the mask
is chosen again in-process by `review_mask` from the served database's own memory rows, at the
URL's time and seed: the served and in-process choices must be equal. Then the outcomes are set
beside an in-process run of the same pair.

    python -m bench.learning --http
"""

import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path

import numpy as np

from app.db.store import make_engine
from app.engine.tokens import eligible_spans
from app.memory.identity import Identity
from app.memory.learner_model import learner_model
from app.memory.policy import CHOSEN
from app.memory.review import review_mask, span_lines
from app.memory.state import card_version, first_seen, token_memory

from .models import FSRS6
from .regimes import Regime
from .runs import drills
from .sim import START, outcomes, run_pair

FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
ROOT = Path(__file__).resolve().parents[2]
SECRET = "learning-bench-" + "k" * 32
REGIME = Regime("light", 20, 14)
INPUT = re.compile(r'<input class="blank[^"]*" name="(s\d+)"')
HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')


def set_clock(path: Path, moment: datetime) -> None:
    path.write_text(moment.strftime("@%Y-%m-%d %H:%M:%S"))


def serve(data: Path, clock: Path) -> tuple[subprocess.Popen, str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "LD_PRELOAD": FAKETIME,
        "FAKETIME_TIMESTAMP_FILE": str(clock),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "CODECLOZE_DATA_DIR": str(data),
        "CODECLOZE_EXECUTION": "false",
        "CODECLOZE_USE_CDN": "false",
        "CODECLOZE_SECRET_KEY": SECRET,
        "CODECLOZE_FIT_REVIEWS": "0",
        "CODECLOZE_LOG_LEVEL": "WARNING",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


class Browser:
    def __init__(self, url: str):
        self.url, self.jar = url, CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(self.url + path, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def post(self, path: str, form: dict) -> str:
        data = urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(self.url + path, data=data, headers={"Origin": self.url})
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode()

    def learner(self) -> str:
        """The id in the learner cookie ("" before the server set one: no memory yet)."""
        cookie = next((c.value for c in self.jar if c.name == "cc_learner"), None)
        return Identity(SECRET).learner_from(cookie) or ""


def answer(page: str, spans_by_index: dict, model, t: float, u: np.ndarray, position: dict) -> tuple[dict, list]:
    """The form a learner sends: every blank right when recalled (the model's draw), else "?"."""
    names = INPUT.findall(page)
    picked = np.array([position[int(n[1:])] for n in names])
    recalled = u[picked] < model.recall(t)[picked]
    model.review(picked, t, recalled)
    form = dict(HIDDEN.findall(page))
    form.update({n: spans_by_index[int(n[1:])].text if ok else "?" for n, ok in zip(names, recalled.tolist())})
    return form, names


def main() -> int:
    if not Path(FAKETIME).exists():
        print(f"{FAKETIME} is missing: apt-get install faketime (Debian's libfaketime)", file=sys.stderr)
        return 2
    snippet = drills()[0]
    spans = eligible_spans(snippet.code)
    by_index, position = {s.index: s for s in spans}, {s.index: p for p, s in enumerate(spans)}
    rng = np.random.default_rng([0, len("fsrs"), sum(map(ord, "fsrs" + REGIME.name))])  # as sim.run_pair
    difficulty_seed = int(rng.integers(2**32))
    times = REGIME.sessions(rng)
    draws = rng.random((len(times), len(spans)))
    seeds = rng.integers(2**40, size=len(times))
    with tempfile.TemporaryDirectory() as tmp:
        data, clock = Path(tmp) / "data", Path(tmp) / "clock"
        set_clock(clock, START)
        proc, url = serve(data, clock)
        engine = make_engine(f"sqlite:///{data / 'codecloze.db'}")
        try:
            learners = {
                "random": (Browser(url), FSRS6(len(spans), np.random.default_rng(difficulty_seed))),
                "review": (Browser(url), FSRS6(len(spans), np.random.default_rng(difficulty_seed))),
            }
            same, started = 0, time.monotonic()
            for t, u, seed in zip(times, draws, seeds):
                set_clock(clock, START + timedelta(days=t))
                browser, model = learners["random"]
                _, page = browser.get(f"/s/{snippet.id}/drill?rate={REGIME.rate}&seed={int(seed)}")
                form, _ = answer(page, by_index, model, t, u, position)
                browser.post(f"/s/{snippet.id}/drill", form)
                browser, model = learners["review"]
                where, page = browser.get(f"/s/{snippet.id}/review?rate={REGIME.rate}")
                form, names = answer(page, by_index, model, t, u, position)
                same += _matches(engine, browser, snippet, where, names)
                browser.post(f"/s/{snippet.id}/review", form)
            seconds = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(10)
            engine.dispose()
    served = {name: outcomes(model, times[-1]) for name, (_, model) in learners.items()}
    local = run_pair("fsrs", REGIME, snippet, 0, {"random": "random", "review": CHOSEN})
    print(
        f"HTTP run: {snippet.id}, {len(times)} sessions of {REGIME.rate} % over {REGIME.days} days, "
        f"{seconds:.0f} s; served review masks equal to the in-process choice: {same} of {len(times)}"
    )
    print("| learner | run | recall +0 | +7 | +30 | known +7 |\n|---|---|---|---|---|---|")
    for name in ("random", "review"):
        for run, result in (("HTTP (faketime)", served[name]), ("in-process", local[name])):
            print(
                f"| {name} | {run} | {result[0][0]:.3f} | {result[7][0]:.3f} | {result[30][0]:.3f} "
                f"| {result[7][1]:.0%} |"
            )
    return 0 if same == len(times) else 1


def _matches(engine, browser, snippet, where: str, names: list[str]) -> bool:
    """The served mask is what `review_mask` chooses from the served database at the URL's time and seed."""
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(where).query, keep_blank_values=True))
    learner = browser.learner()
    at = datetime.fromtimestamp(int(query["at"]), UTC)
    with engine.connect() as db:
        memory = token_memory(
            db, learner, snippet.id, snippet.version, snippet.code, card_version(db, learner, snippet.id)
        )
        model, seen = learner_model(db, learner), first_seen(db, learner, snippet.id)
    review = review_mask(
        snippet.version,
        tuple(s.index for s in eligible_spans(snippet.code)),
        int(query["rate"]),
        int(query["seed"]),
        memory,
        at,
        scheduler=model.scheduler,
        retention=model.retention,
        first_seen=seen,
        scales=model.scales,
        lines=span_lines(snippet.code),
        lines_shared=model.lines.shared,
    )
    return sorted(review.chosen) == sorted(int(n[1:]) for n in names)
