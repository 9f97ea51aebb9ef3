"""The first submission on a cold server, and the first of each day, against the ones after: the
server's own time per phase, from its submission log lines. A learner drills the 在线 Softmax drill
at 30 % a few times a day, on a server as ./scripts/serve starts it, execution on, under a clock
libfaketime moves a day at a time (Debian's `faketime`).

    python bench/first_submission.py [--days 4] [--per-day 4]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.learn.drills import random_drill  # noqa: E402
from app.observability.submissions import PHASES  # noqa: E402
from app.snippets.library import SnippetLibrary  # noqa: E402
from tests.faketime_server import FAKETIME, SECRET, Clock  # noqa: E402
from tests.servers import start_server  # noqa: E402

SNIPPET, RATE = "mlm-online-softmax", 30


def form(seed: int) -> dict:
    library = SnippetLibrary()
    library.load_dir(ROOT / "snippets")
    snippet = library.get(SNIPPET)
    drill = random_drill(snippet, RATE, seed)
    return {"version": snippet.version, "rate": str(RATE), "seed": str(seed), **{h.key: h.answer for h in drill.holes}}


def submissions(days: int, per_day: int) -> list[dict]:
    """The log line of every submission, in order, with its day and place in the day."""
    folder = Path(tempfile.mkdtemp(prefix="codecloze-first-"))
    clock = Clock(folder / "clock")
    clock.set(datetime(2026, 3, 2, 9, 0))
    env = {
        "LD_PRELOAD": str(FAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(clock.path),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "CODECLOZE_SECRET_KEY": SECRET,
        "CODECLOZE_LOG_LEVEL": "INFO",
    }
    log_path = folder / "server.log"
    with open(log_path, "wb") as log:
        proc, url = start_server(folder / "data", output=log, **env)
        try:
            http = httpx.Client(base_url=url, timeout=60, headers={"origin": url, "accept": "application/json"})
            for day in range(days):
                for n in range(per_day):
                    assert http.post(f"/s/{SNIPPET}/drill", data=form(day * per_day + n)).status_code == 200
                    clock.advance(minutes=3)
                clock.advance(days=1)
        finally:
            proc.terminate()
            proc.wait(30)  # as the other benchmarks wait: a loaded machine (CI) took over 10 s once
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if '"submission"' in line]
    return [{**line, "day": i // per_day, "place": i % per_day} for i, line in enumerate(lines)]


def row(name: str, lines: list[dict]) -> str:
    def median(field: str) -> str:
        values = [line[field] for line in lines if line.get(field) is not None]
        return f"{statistics.median(values):.1f}" if values else "–"

    worst = max(line["total_ms"] for line in lines)
    cells = " | ".join(median(f"{phase}_ms") for phase in PHASES)
    return f"| {name} | {len(lines)} | {cells} | {median('total_ms')} | {worst:.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=4)
    parser.add_argument("--per-day", type=int, default=4)
    args = parser.parse_args()
    if not FAKETIME.exists():
        raise SystemExit("needs Debian's faketime (apt-get install faketime)")
    os.environ.setdefault("CODECLOZE_DATA_DIR", tempfile.mkdtemp())
    lines = submissions(args.days, args.per_day)
    header = " | ".join(PHASES)
    print(f"| submissions | n | {header} | total | worst total |  (median ms, server side)")
    print("|" + " ---: |" * (len(PHASES) + 4))
    print(row("cold server's first", lines[:1]))
    print(row("first of a later day", [line for line in lines if line["place"] == 0 and line["day"] > 0]))
    print(row("the others", [line for line in lines if line["place"] > 0]))


if __name__ == "__main__":
    main()
