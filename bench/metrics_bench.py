"""What counting costs a request, in-process (ASGI called directly, CPU time per request):

(1) the request middleware alone around an app that answers at once, with the values in this
    process and (in a child process) in PROMETHEUS_MULTIPROC_DIR files;
(2) a whole app's small GET (/highlight.css) with and without the middleware;
(3) a submission's log line and counts (`observability.graded`), written (INFO) and filtered out.

    python bench/metrics_bench.py [--requests 20000]     # prints one JSON object
"""

import argparse
import asyncio
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# Importing app.main builds the default app: keep its data out of the working tree.
os.environ.setdefault("CODECLOZE_DATA_DIR", tempfile.mkdtemp(prefix="codecloze-bench-"))


async def _answer(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


class _Route:
    path = "/s/{snippet_id}/drill"


def _scope(path: str = "/s/x/drill") -> dict:
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [],
        "route": _Route(),
        "scheme": "http",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 1),
        "root_path": "",
        "http_version": "1.1",
        "asgi": {"version": "3.0"},
    }


async def _receive():
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message):
    pass


def per_request_us(app, count: int, path: str = "/s/x/drill") -> float:
    async def run():
        for _ in range(count // 10):  # warm-up
            await app(_scope(path), _receive, _send)
        began = time.process_time()
        for _ in range(count):
            await app(_scope(path), _receive, _send)
        return (time.process_time() - began) / count * 1e6

    return round(asyncio.run(run()), 2)


def middleware_alone(count: int) -> dict:
    from app.observability.metrics import Metrics
    from app.observability.middleware import RequestMetrics

    bare = min(per_request_us(_answer, count) for _ in range(3))
    counted = min(per_request_us(RequestMetrics(_answer, Metrics()), count) for _ in range(3))
    return {"bare_us": bare, "with_middleware_us": counted, "middleware_us": round(counted - bare, 2)}


def whole_app(count: int) -> dict:
    from app.main import create_app
    from app.observability.middleware import RequestMetrics
    from app.settings import Settings

    def app(counted: bool):
        made = create_app(Settings(data_dir=Path(tempfile.mkdtemp()), execution=False, use_cdn=False))
        if not counted:
            made.user_middleware = [m for m in made.user_middleware if m.cls is not RequestMetrics]
        return made

    plain, counted = app(False), app(True)
    rounds = [
        (per_request_us(plain, count, "/highlight.css"), per_request_us(counted, count, "/highlight.css"))
        for _ in range(3)
    ]
    without, with_ = min(r[0] for r in rounds), min(r[1] for r in rounds)
    return {"without_us": without, "with_us": with_, "difference_us": round(with_ - without, 2)}


def submission_line(count: int) -> dict:
    from app.engine.score import score
    from app.learn.drills import random_drill
    from app.learn.feedback import Result
    from app.main import create_app
    from app.observability import Stopwatch, graded, logs
    from app.settings import Settings

    app = create_app(Settings(data_dir=Path(tempfile.mkdtemp()), execution=False, use_cdn=False))
    drill = random_drill(app.state.library.get("mlm-flash-forward"), 20, 1)
    answers = {h.key: h.answer for h in drill.holes}
    result = Result(tuple(score(list(drill.holes), answers, set())))
    request = type("Request", (), {"app": app})()
    out = {}
    for level in ("INFO", "WARNING"):
        handler = logs.configure(level, "json")
        logging.getLogger("codecloze").removeHandler(handler)
        sink = logging.StreamHandler(open(os.devnull, "w"))
        sink.setFormatter(handler.formatter)
        logging.getLogger("codecloze").addHandler(sink)
        began = time.process_time()
        for _ in range(count):
            graded(request, drill, result, Stopwatch())
        out[f"graded_{level.lower()}_us"] = round((time.process_time() - began) / count * 1e6, 2)
        logging.getLogger("codecloze").removeHandler(sink)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--part", default="all")
    args = parser.parse_args()
    if args.part == "middleware":
        print(json.dumps(middleware_alone(args.requests)))
        return
    with tempfile.TemporaryDirectory() as files:
        child = subprocess.run(
            [sys.executable, __file__, "--part", "middleware", "--requests", str(args.requests)],
            env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": files},
            capture_output=True,
            text=True,
            check=True,
        )
    print(
        json.dumps(
            {
                "requests": args.requests,
                "middleware": middleware_alone(args.requests),
                "middleware_multiprocess": json.loads(child.stdout.strip().splitlines()[-1]),
                "app_highlight_css": whole_app(args.requests),
                "submission": submission_line(args.requests // 4),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
