"""Throughput and latency of a new-mask drill page and a scored submission for each masking unit
(token, span, line; 20 %), each beside a static page of the same size served by the same FastAPI
app, in one run (wrk, one uvicorn worker). Each submission is of one of 64 returning learners
(cookies signed with the server's key), drawn at random. Needs Debian's `wrk` (apt-get install wrk).

    python bench/web_bench.py [--seconds 5] [--rounds 3] [--connections 32] [--units token,span,line]
"""

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import free_port  # noqa: E402

NEW_MASK = """
request = function()
  return wrk.format("GET", "/s/mlm-flash-forward/drill?rate=20{query}&seed=" .. math.random(0, 2^31))
end
"""
# The browser submits with htmx and gets the trainer block back; the static POST reads the
# same bodies (200 forms: different masks, different wrong answers) and answers with a static
# page of the scored block's mean size.
SUBMIT = """
local bodies = {{{bodies}}}
local learners = {{{learners}}}
request = function()
  return wrk.format("POST", "{path}", {{["Content-Type"] = "application/x-www-form-urlencoded",
    ["HX-Request"] = "true", ["Cookie"] = "cc_learner=" .. learners[math.random(#learners)], ["Origin"] = "{origin}"}},
    bodies[math.random(#bodies)])
end
"""


def wrk(url: str, script: str, seconds: int, connections: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:  # gone when wrk is done with it
        lua.write(script)
        lua.flush()
        out = subprocess.run(
            ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", lua.name, url],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def ms(label: str) -> float:
        value, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": ms("50"),
        "p99": ms("99"),
        "errors": int(errors.group(1)) if errors else 0,
    }


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def pair(run, static: str, target: str, rounds: int) -> tuple[list[dict], list[dict]]:
    """Static twin and target in alternating rounds, so drift of the machine hits both alike."""
    run(target, warmup=True)  # fill the caches a running server has
    statics, targets = [], []
    for _ in range(rounds):
        statics.append(run(static))
        targets.append(run(target))
    return statics, targets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--units", default="token,span,line")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("web_bench needs wrk, the HTTP load generator: apt-get install wrk")
    port = free_port()  # a fixed port would measure whichever server already holds it
    # The server and this process sign the returning learner's cookie with one key.
    os.environ.setdefault("CODECLOZE_SECRET_KEY", secrets.token_urlsafe(32))
    made_data = "BENCH_DATA" not in os.environ
    os.environ.setdefault("BENCH_DATA", tempfile.mkdtemp())  # one database for every worker
    command = [sys.executable, "-m", "uvicorn", "bench.web_app:app", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen([*command, "--workers", str(args.workers)], cwd=ROOT)
    results = []
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(150):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        from app.learn.drills import mask_query
        from bench.web_app import BODIES, LEARNERS

        def run(script: str, warmup: bool = False) -> dict:
            return wrk(base, script, 2 if warmup else args.seconds, args.connections)

        for unit in args.units.split(","):
            bodies = ", ".join(f'"{b}"' for b in BODIES[unit])  # urlencoded: no quotes or backslashes
            learners = ", ".join(f'"{c}"' for c in LEARNERS)  # signed ids: letters, digits, . - _
            query = mask_query(unit, ("names", "literals", "operators"))
            pages = pair(run, f'wrk.path = "/bench/static/{unit}"', NEW_MASK.replace("{query}", query), args.rounds)
            scored = pair(
                run,
                SUBMIT.format(bodies=bodies, learners=learners, origin=base, path=f"/bench/static/{unit}"),
                SUBMIT.format(bodies=bodies, learners=learners, origin=base, path="/s/mlm-flash-forward/drill"),
                args.rounds,
            )
            results.append((unit, pages, scored))
    finally:
        server.terminate()
        server.wait()
        if made_data:
            shutil.rmtree(os.environ["BENCH_DATA"], ignore_errors=True)
    print(f"{args.rounds} alternating rounds of {args.seconds} s each; medians over the rounds\n")
    print("| unit | case | req/s | p50 ms | p99 ms | non-2xx | vs static (each round) |\n|---|---|---|---|---|---|---|")
    for unit, pages, scored in results:
        for names, (statics, targets) in (
            (("static page (GET), same size as (a)", "(a) drill page, new mask"), pages),
            (("static page (POST, same body), same size as (b)", "(b) scored submission (htmx)"), scored),
        ):
            ratios = [t["rps"] / s["rps"] for s, t in zip(statics, targets)]
            for name, runs, vs in (
                (names[0], statics, "100%"),
                (names[1], targets, f"{median(ratios):.0%} ({', '.join(f'{r:.0%}' for r in ratios)})"),
            ):
                print(
                    f"| {unit} | {name} | {median([r['rps'] for r in runs]):.0f} | {median([r['p50'] for r in runs]):.1f} |"
                    f" {median([r['p99'] for r in runs]):.1f} | {sum(r['errors'] for r in runs)} | {vs} |"
                )


if __name__ == "__main__":
    main()
