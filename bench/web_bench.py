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
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NEW_MASK = """
request = function()
  return wrk.format("GET", "/s/mlm-flash-forward/drill?rate=20&seed=" .. math.random(0, 2^31))
end
"""
SUBMIT = """
wrk.method = "POST"
wrk.body = "{body}"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.path = "/s/mlm-flash-forward/drill"
"""


def submission_body() -> str:
    from app.settings import PROJECT_DIR
    from app.snippets.library import SnippetLibrary
    from app.trainer import random_drill
    library = SnippetLibrary(Path(tempfile.mkdtemp()))
    library.load_dir(PROJECT_DIR / "snippets")
    snippet = library.get("mlm-flash-forward")
    drill = random_drill(snippet, 20, 1)
    # Every other blank right, so both verdicts are exercised.
    answers = {h.key: (h.answer if i % 2 else "wrong") for i, h in enumerate(drill.holes)}
    return urlencode({"version": snippet.version, "rate": 20, "seed": 1, **answers})


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
        body = submission_body()
        rows = [("static page, same size", wrk(base + "/bench/static", "", args.seconds, args.connections)),
                ("(a) drill page, new mask", wrk(base, NEW_MASK, args.seconds, args.connections)),
                ("static page, same size", wrk(base + "/bench/static", "", args.seconds, args.connections)),
                ("(b) token-scored submission", wrk(base, SUBMIT.format(body=body), args.seconds, args.connections))]
    finally:
        server.terminate()
        server.wait()
    static = (rows[0][1]["rps"] + rows[2][1]["rps"]) / 2
    print(f"| case | req/s | p50 ms | p99 ms | non-2xx | vs static |\n|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['rps']:.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['errors']} | {r['rps'] / static:.0%} |")


if __name__ == "__main__":
    main()
