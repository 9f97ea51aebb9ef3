"""Throughput and latency of a new-mask drill page and a token-scored submission, each beside a
static page of the same size served by the same FastAPI app, in one run (wrk, one uvicorn worker).

    python bench/web_bench.py [--seconds 10] [--connections 32]
"""
import argparse
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NEW_MASK = """
request = function()
  return wrk.format("GET", "/s/mlm-flash-forward/drill?rate=20&seed=" .. math.random(0, 2^31))
end
"""
# The browser submits with htmx and gets the trainer block back; the static POST reads the
# same bodies (200 forms: different masks, different wrong answers) and answers with a static
# page of the scored block's mean size.
SUBMIT = """
local bodies = {{{bodies}}}
request = function()
  return wrk.format("POST", "{path}", {{["Content-Type"] = "application/x-www-form-urlencoded",
    ["HX-Request"] = "true", ["Cookie"] = "cc_learner={learner}"}}, bodies[math.random(#bodies)])
end
"""


def wrk(url: str, script: str, seconds: int, connections: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script)
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", lua.name, url],
                         capture_output=True, text=True, check=True).stdout
    def ms(label: str) -> float:
        value, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": ms("50"), "p99": ms("99"), "errors": int(errors.group(1)) if errors else 0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    port = 8799
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "bench.web_app:app", "--port", str(port),
                               "--log-level", "warning"], cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        from bench.web_app import BODIES, LEARNER
        bodies = ", ".join(f'"{b}"' for b in BODIES)  # urlencoded: no quotes or backslashes
        run = lambda script: wrk(base, script, args.seconds, args.connections)  # noqa: E731
        static_get = run('wrk.path = "/bench/static"')
        page = run(NEW_MASK)
        static_post = run(SUBMIT.format(bodies=bodies, learner=LEARNER, path="/bench/static"))
        scored = run(SUBMIT.format(bodies=bodies, learner=LEARNER, path="/s/mlm-flash-forward/drill"))
    finally:
        server.terminate()
        server.wait()
    print("| case | req/s | p50 ms | p99 ms | non-2xx | vs static |\n|---|---|---|---|---|---|")
    for name, r, static in (("static page (GET), same size as (a)", static_get, static_get),
                            ("(a) drill page, new mask", page, static_get),
                            ("static page (POST, same body), same size as (b)", static_post, static_post),
                            ("(b) token-scored submission (htmx)", scored, static_post)):
        print(f"| {name} | {r['rps']:.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['errors']} | {r['rps'] / static['rps']:.0%} |")


if __name__ == "__main__":
    main()
