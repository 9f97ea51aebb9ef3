"""Per-learner FSRS parameters are fitted in the background, never while a request waits."""

import asyncio
import fcntl
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS
from sqlalchemy import insert, select

from app.db.records import AttemptRecord
from app.db.store import Store
from app.engine.tokens import eligible_spans
from app.learn.recording import attempt_store
from app.memory.fitting import FIT_SECONDS, Fitter, claim_fit, needs_fit, oldest, release_fit, review_logs
from app.memory.identity import Identity
from app.memory.learner_model import learner_model
from app.memory.tables import learners, models
from app.sandbox.background import BackgroundBudget
from app.snippets.library import SnippetLibrary
from tests.helpers import drill_form
from tests.memory_helpers import SNIPPET
from tests.servers import running_server

pytestmark = pytest.mark.app

SECRET = "fitting-test-secret-" + "x" * 24
LEARNER = "f" * 32


def write_history(store: Store, code: str, version: str, days: int, per_day: int) -> int:
    """A month of drills written through the store's own batch path; the token reviews written."""
    spans, rng, start = eligible_spans(code), random.Random(5), datetime.now(UTC) - timedelta(days=days)
    for day in range(days):
        picked = rng.sample(spans, per_day)
        blanks = tuple(
            {
                "span": s.index,
                "key": f"s{s.index}",
                "expected": s.text,
                "given": s.text,
                "state": "right" if rng.random() < 0.8 else "wrong",
            }
            for s in picked
        )
        record = AttemptRecord(
            LEARNER,
            SNIPPET,
            version,
            "random",
            30,
            day,
            {b["key"]: b["state"] == "right" for b in blanks},
            blanks=blanks,
            code=code,
        )
        store.commit([(day + 1, record, start + timedelta(days=day))])
    return days * per_day


def learner_with_history(tmp_path: Path, days: int = 12) -> tuple[str, Store]:
    """A database (its URL and store) where LEARNER has `days` of drills (12: enough for a fit at 250)."""
    url = f"sqlite:///{tmp_path / 'codecloze.db'}"
    store = attempt_store(url)
    library = SnippetLibrary()
    library.load_dir(Path(__file__).resolve().parent.parent / "snippets")
    snippet = library.get(SNIPPET)
    write_history(store, snippet.code, snippet.version, days=days, per_day=26)
    return url, store


@pytest.mark.server
def test_fitting_runs_after_the_response_in_another_process_and_drives_the_learner(tmp_path, main_app):
    snippet = main_app.state.library.get(SNIPPET)
    store = attempt_store(f"sqlite:///{tmp_path / 'codecloze.db'}")
    written = write_history(
        store, snippet.code, snippet.version, days=24, per_day=26
    )  # fsrs keeps its defaults under 512
    with store.engine.connect() as db:
        assert len(review_logs(db, LEARNER)) == written and learner_model(db, LEARNER).reviews == written
    store.close()
    cookie = Identity(SECRET).cookie_value(LEARNER)
    with running_server(
        tmp_path, CODECLOZE_FIT_REVIEWS="500", CODECLOZE_EXECUTION="false", CODECLOZE_SECRET_KEY=SECRET
    ) as url:
        form = urllib.parse.urlencode(drill_form(main_app, SNIPPET, 30, 1)).encode()
        request = urllib.request.Request(
            f"{url}/s/{SNIPPET}/drill", data=form, headers={"Cookie": f"cc_learner={cookie}", "Origin": url}
        )
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
        answered, answered_at = time.monotonic() - started, datetime.now(UTC)
        store = attempt_store(f"sqlite:///{tmp_path / 'codecloze.db'}")
        try:
            deadline, row = time.monotonic() + 900, None  # a fit takes minutes on a loaded machine
            while time.monotonic() < deadline:
                with store.engine.connect() as db:
                    row = db.execute(select(models).where(models.c.learner == LEARNER)).first()
                if row.parameters:
                    break
                time.sleep(0.5)
            assert row.parameters, "no parameters were fitted"
            assert answered < 5 and row.fitted_at.replace(tzinfo=UTC) > answered_at  # after the response
            assert row.fitted_reviews >= written and len(row.parameters) == len(DEFAULT_PARAMETERS)
            assert any(abs(a - b) > 1e-6 for a, b in zip(row.parameters, DEFAULT_PARAMETERS))
            with store.engine.connect() as db:
                model = learner_model(db, LEARNER)
            assert model.fitted and tuple(model.scheduler.parameters) == tuple(row.parameters)
        finally:
            store.close()


def _nice(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    except OSError:
        return None  # it ended


@pytest.mark.server
def test_the_fitting_process_runs_at_the_lowest_cpu_priority(tmp_path):
    """A fit is background work: on a busy host every learner's request and job goes first."""
    url, store = learner_with_history(tmp_path)
    fitter = Fitter(store.engine, url, 250)
    try:
        fitter.wrote([LEARNER])
        seen, deadline = set(), time.monotonic() + 900  # a fit takes minutes on a loaded machine
        while fitter.fitted == 0 and time.monotonic() < deadline:
            process = fitter._process
            if process is not None and process.poll() is None and (nice := _nice(process.pid)) is not None:
                seen.add(nice)
            time.sleep(0.01)
        assert fitter.fitted == 1 and os.nice(0) < 19
        assert 19 in seen, seen  # the fit ran, and at nice 19 (the web process keeps its own)
    finally:
        fitter.close()
        store.close()


def test_when_a_learner_is_fitted_again():
    assert not needs_fit(499, 0, 500) and needs_fit(500, 0, 500)
    assert not needs_fit(1500, 1000, 500) and needs_fit(2000, 1000, 500)
    assert not needs_fit(10**6, 0, 0)  # 0 turns fitting off


@pytest.mark.server
def test_a_learner_is_fitted_by_one_worker_at_a_time(tmp_path):
    """Two workers' fitters hear of the same learner at once: one fit runs. A claim another fitter
    holds keeps a fitter off; a claim older than a fit may run is taken over."""
    url, store = learner_with_history(tmp_path)

    def claim_of():
        with store.engine.connect() as db:
            return db.execute(select(models.c.fitting_since).where(models.c.learner == LEARNER)).scalar()

    now = time.time()
    assert claim_fit(store.engine, LEARNER, 250, now) and claim_of() == now  # held by "another worker"
    assert not claim_fit(store.engine, LEARNER, 250, now + 1)
    held = Fitter(store.engine, url, 250)
    try:
        held.wrote([LEARNER])
        time.sleep(3)
        assert held._process is None and held.fitted == 0  # it never started a fit
    finally:
        held.close()
    release_fit(store.engine, LEARNER, now)
    assert claim_of() is None
    assert claim_fit(store.engine, LEARNER, 250, now - FIT_SECONDS - 61)  # a claim left by a dead fitter ...
    assert claim_fit(store.engine, LEARNER, 250, now) and claim_of() == now  # ... is taken over
    release_fit(store.engine, LEARNER, now)

    workers = [Fitter(store.engine, url, 250), Fitter(store.engine, url, 250)]
    try:
        for fitter in workers:
            fitter.wrote([LEARNER])
        deadline = time.monotonic() + 900  # a fit takes minutes on a loaded machine
        while sum(f.fitted for f in workers) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(2)  # the other one had its chance
        assert [f.fitted for f in workers] in ([1, 0], [0, 1])
        assert claim_of() is None  # released after the fit
        assert not claim_fit(store.engine, LEARNER, 250, time.time())  # fitted on every review: no fit needed
    finally:
        for fitter in workers:
            fitter.close()
        store.close()


SERVER_WITH_A_FITTER = """
import sys, time
from app.learn.recording import attempt_store
from app.memory.fitting import Fitter
store = attempt_store(sys.argv[1])
fitter = Fitter(store.engine, sys.argv[1], 250)
fitter.wrote([sys.argv[2]])
time.sleep(600)
"""


def _fits() -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"-m\x00app.memory.fitting\x00" in (entry / "cmdline").read_bytes():
                out.append(int(entry.name))
        except OSError:
            continue
    return out


@pytest.mark.server
def test_a_fit_dies_with_the_server_that_started_it(tmp_path):
    url, store = learner_with_history(tmp_path, days=24)  # a real fit: tens of seconds
    store.close()
    before = set(_fits())
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER_WITH_A_FITTER, url, LEARNER], cwd=Path(__file__).parent.parent
    )
    try:
        deadline, fit = time.monotonic() + 120, None
        while fit is None and time.monotonic() < deadline:
            fit = next(iter(set(_fits()) - before), None)
            time.sleep(0.05)
        assert fit is not None, "no fit started"
        time.sleep(1)  # the fit is under way (importing torch alone takes longer than what follows)
        server.kill()  # kill -9 of the web process
        server.wait()
        deadline = time.monotonic() + 1.5  # a signal, not a fit that happened to end
        while fit in _fits() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fit not in _fits()
    finally:
        server.kill()
        server.wait()


def test_the_learner_here_longest_is_fitted_first(tmp_path):
    """Cheap new ids wait behind learners who have been here longer, whatever the order they wrote in."""
    store = attempt_store(f"sqlite:///{tmp_path / 'codecloze.db'}")
    now = datetime.now(UTC)
    try:
        with store.engine.begin() as db:
            for name, age in (("new", 0), ("old", 90), ("middle", 30)):
                db.execute(insert(learners).values(id=name, created_at=now - timedelta(days=age), link_gen=0))
        assert oldest(store.engine, ["new", "middle", "old"]) == "old"
        assert oldest(store.engine, ["new", "middle"]) == "middle"
        assert oldest(store.engine, ["unknown", "other"]) == "unknown"  # none known: in order of arrival
    finally:
        store.close()


@pytest.mark.server
def test_a_fit_waits_for_a_place_in_the_background_budget_and_holds_it(tmp_path):
    """Fits and strength analyses share one budget: while analyses hold every place, no fit starts."""
    url, store = learner_with_history(tmp_path)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    budget, release = BackgroundBudget(1), threading.Event()

    async def analysis():  # holds the only place until told
        async with budget.slot():
            await asyncio.to_thread(release.wait)

    held = asyncio.run_coroutine_threadsafe(analysis(), loop)
    fitter = Fitter(store.engine, url, 250)
    fitter.share(budget, loop)
    try:
        fitter.wrote([LEARNER])
        time.sleep(3)
        assert fitter._process is None and budget.held() == 1  # it waits for the place
        release.set()
        held.result(timeout=10)
        deadline = time.monotonic() + 60
        while fitter._process is None:
            assert time.monotonic() < deadline, "the fit never started"
            time.sleep(0.05)
        assert budget.held() == 1  # the fit's own
    finally:
        fitter.close()
        store.close()
        loop.call_soon_threadsafe(loop.stop)


@pytest.mark.server
def test_the_fitters_of_one_host_take_turns(tmp_path):
    """Another worker on this host is fitting (it holds the host's lock): this one waits, then fits."""
    url, store = learner_with_history(tmp_path)
    lock = tmp_path / "fitting.lock"
    fitter = Fitter(store.engine, url, 250, lock)
    try:
        with open(lock, "a") as other_worker:
            fcntl.flock(other_worker, fcntl.LOCK_EX)
            fitter.wrote([LEARNER])
            time.sleep(3)
            assert fitter._process is None  # it waits its turn
        deadline = time.monotonic() + 60
        while fitter._process is None:
            assert time.monotonic() < deadline, "the fit never started"
            time.sleep(0.05)
    finally:
        fitter.close()
        store.close()
