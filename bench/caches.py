"""What each of the app's caches earns: CPU per request of the pages a learner waits for, with
every cache on and then with one cache off (every reference to it swapped for the plain
function), alternated on and off so a shared machine's drift falls on both sides.

A learner's round is a new-mask drill page and its submission, for each masking unit at 20 %,
then their review page, the home page and /me; and the review page of a snippet a teacher edited
since the learner last practised it (their memory is carried over to the new version on every
view until they submit on it). A cache earns its place when turning it off
costs one of these figures 10 % or more. Two measures: what each cache saves (its calls in a pass
of rounds, recorded, then repeated on the plain function: steady on a busy machine), and the
figures end to end with the cache on and off (what a learner would see; noisy when shared).
What a cache saves is measured with every other cache on: one whose calls come from inside
another's misses shows only once that one is gone, so after removing several, measure the figures
end to end again (`--repeats`, or bench/drill_cpu.py).

    python bench/caches.py [--rounds 40] [--repeats 2] [--only name,name]
"""

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.learn.drills import random_drill  # noqa: E402
from bench.drill_cpu import HEADERS, call  # noqa: E402
from bench.web_app import RATE, SNIPPET, UNITS, app, page_url, submission_form  # noqa: E402

PAGES = {"home": "/", "me": "/me"}
FIGURES = [f"{kind} {unit}" for unit in UNITS for kind in ("page", "submission")] + ["review", *PAGES, "edited"]
EDITED = "bench-edited"  # an upload of SNIPPET's source, edited once the learner has practised it
PLAIN = [HEADERS[-1], (b"host", b"127.0.0.1")]  # a page as the browser asks for it: cookie, no htmx
EARNS = 0.10  # the share of a figure a cache must move to stay


def caches() -> dict[str, object]:
    """Every lru_cache/cache the app's own modules define (a library's, such as urllib's, is not ours to
    remove), by a readable name (module.function)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("app.") or module is None:
            continue
        for value in vars(module).values():
            if hasattr(value, "cache_info") and hasattr(value, "__wrapped__") and value.__module__.startswith("app."):
                found.setdefault(id(value), (f"{value.__module__}.{value.__wrapped__.__qualname__}", value))
    return dict(sorted(found.values()))


@contextlib.contextmanager
def swapped(cached, stand_in):
    """`cached` replaced by `stand_in` wherever a module of the app holds it."""
    places = []
    for name, module in list(sys.modules.items()):
        if (name.startswith("app.") or name.startswith("bench.")) and module is not None:
            for attr, value in list(vars(module).items()):
                if value is cached:
                    setattr(module, attr, stand_in)
                    places.append((module, attr))
    try:
        yield
    finally:
        for module, attr in places:
            setattr(module, attr, cached)


class Rounds:
    """A learner's rounds on seeds never shown before, each request's CPU time kept by figure."""

    def __init__(self, rounds: int):
        self.rounds, self.next_seed, self.rng = rounds, 10**6, random.Random(11)
        self.figure = ""  # the figure whose request runs now

    async def measure(self) -> dict[str, float]:
        """Milliseconds of CPU per request, by figure, over the rounds."""
        spent = {figure: 0.0 for figure in FIGURES}
        for _ in range(self.rounds):
            for figure, request in self.requests():
                self.figure = figure
                start = time.process_time()
                await request
                spent[figure] += time.process_time() - start
        return {figure: total * 1000 / self.rounds for figure, total in spent.items()}

    def requests(self):
        for unit in UNITS:
            self.next_seed += 1
            seed = self.next_seed
            yield f"page {unit}", call("GET", page_url(unit, seed))
            # After the page, so that it draws a mask never drawn before; the load's own work, no figure's.
            self.figure = ""
            body = urlencode(submission_form(unit, seed, self.rng)).encode()
            yield f"submission {unit}", call("POST", f"/s/{SNIPPET}/drill", body)
        yield "review", self.review(SNIPPET)
        yield "edited", self.review(EDITED)
        for figure, url in PAGES.items():
            yield figure, call("GET", url, headers=PLAIN)

    async def saved(self, cached) -> dict[str, float]:
        """Milliseconds per request the cache saves, by figure: the calls one pass of rounds makes
        to it, recorded, then each repeated on the plain function (its cost without the cache)."""
        calls: dict[str, list] = {figure: [] for figure in FIGURES}

        def recording(*args, **kwargs):
            if self.figure:
                calls[self.figure].append((args, kwargs))
            return cached(*args, **kwargs)

        with swapped(cached, recording):
            await self.measure()
        uncached = cached.__wrapped__
        out = {}
        for figure, made in calls.items():
            start = time.process_time()
            for args, kwargs in made:
                uncached(*args, **kwargs)
            out[figure] = (time.process_time() - start) * 1000 / self.rounds
        return out

    @staticmethod
    async def review(snippet_id: str) -> None:
        """The review link: the mask is chosen (a redirect to its URL), then shown."""
        chosen = await call("GET", f"/s/{snippet_id}/review", headers=PLAIN, expect=303)
        await call("GET", chosen["location"], headers=PLAIN)


async def practised_then_edited() -> None:
    """EDITED uploaded and published, drilled by the learner, then edited by its teacher."""
    teacher = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {app.state.auth.token}".encode())]
    source = app.state.library.get(SNIPPET).source
    await call("PUT", f"/api/snippets/{EDITED}", source.encode(), headers=teacher, expect=201)
    await call("POST", f"/api/snippets/{EDITED}/publish", headers=teacher)
    snippet = app.state.library.get(EDITED)
    for seed in range(1, 6):
        answers = {h.key: h.answer for h in random_drill(snippet, RATE, seed, "token").holes}
        form = {"version": snippet.version, "rate": str(RATE), "seed": str(seed), **answers}
        await call("POST", f"/s/{EDITED}/drill", urlencode(form).encode())
    edited = source.replace("\n", "\n# edited\n", 3)
    await call("PUT", f"/api/snippets/{EDITED}", edited.encode(), headers=teacher)


async def main(rounds: int, repeats: int, only: set[str]) -> None:
    async with app.router.lifespan_context(app):
        await practised_then_edited()
        load = Rounds(rounds)
        base = await load.measure()  # warm: the learner's history, the snippets' parses, the statements
        chosen = {n: c for n, c in caches().items() if not only or n in only or n.rsplit(".", 1)[-1] in only}
        print(
            "What each cache saves, ms of CPU per request (its calls, repeated uncached), and the share of the figure:\n"
        )
        print(_header())
        for name, cached in chosen.items():
            print(_saved_row(name, await load.saved(cached), base), flush=True)
        if not repeats:
            return
        print("\nEnd to end, ms of CPU per request with the cache → without it (median of runs alternated):\n")
        print(_header())
        for name, cached in chosen.items():
            on, without = [], []
            for _ in range(repeats):
                on.append(await load.measure())
                with swapped(cached, cached.__wrapped__):
                    without.append(await load.measure())
            print(_row(name, on, without), flush=True)


def _header() -> str:
    return "| cache | " + " | ".join(FIGURES) + " | earns |\n|---|" + "---|" * (len(FIGURES) + 1)


def _saved_row(name: str, saved: dict, base: dict) -> str:
    shares = {f: saved[f] / base[f] for f in FIGURES}
    cells = [f"{saved[f]:.2f} ({shares[f]:.0%})" if saved[f] >= 0.005 else "·" for f in FIGURES]
    earns = max(shares.values()) >= EARNS
    return f"| `{name}` | " + " | ".join(cells) + f" | {'yes' if earns else 'no'} |"


def _row(name: str, on: list[dict], without: list[dict]) -> str:
    cells, earns = [], False
    for figure in FIGURES:
        a = statistics.median(r[figure] for r in on)
        b = statistics.median(r[figure] for r in without)
        change = (b - a) / a if a else 0.0
        apart = min(r[figure] for r in without) > max(r[figure] for r in on)  # beyond the runs' spread
        earns |= change >= EARNS and apart
        cells.append(f"{a:.2f}→{b:.2f} ({change:+.0%})")
    return f"| `{name}` | " + " | ".join(cells) + f" | {'yes' if earns else 'no'} |"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2, help="end-to-end runs per cache (0: only what each saves)")
    parser.add_argument("--only", default="", help="comma-separated cache names (function or module.function)")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.repeats, {n for n in args.only.split(",") if n}))
