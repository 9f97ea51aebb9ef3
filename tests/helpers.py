"""Small helpers the page tests share: answers for a mask, inputs on a page."""

import os
import re
import subprocess
import sys
import time

from sqlalchemy import select

from app.db.tables import attempts, responses
from app.learn.drills import fixed_drill, parse_kinds, random_drill
from app.settings import PROJECT_DIR

INPUT = re.compile(r'<input class="blank[^"]*" name="([sc]\d+)"')


def input_names(html: str) -> list[str]:
    return INPUT.findall(html)


def right_answers(
    app,
    snippet_id: str,
    rate: int | None = None,
    seed: int | None = None,
    unit: str = "token",
    kinds: str | None = None,
) -> dict[str, str]:
    snippet = app.state.library.get(snippet_id)
    drill = random_drill(snippet, rate, seed, unit, parse_kinds(kinds)) if rate else fixed_drill(snippet)
    return {h.key: h.answer for h in drill.holes}


def drill_form(
    app, snippet_id: str, rate: int, seed: int, unit: str = "token", kinds: str | None = None, **overrides
) -> dict[str, str]:
    """A submission of every right answer to a mask (its unit and kinds in the form when not the default)."""
    snippet = app.state.library.get(snippet_id)
    form = {
        "version": snippet.version,
        "rate": str(rate),
        "seed": str(seed),
        **({"unit": unit} if unit != "token" else {}),
        **({"kinds": kinds} if kinds else {}),
        **right_answers(app, snippet_id, rate, seed, unit, kinds),
    }
    form.update(overrides)
    return form


EXERCISES = [
    "ex1-attention-memory",
    "ex2-online-softmax",
    "ex3-blocked-matmul",
    "ex4-flash-forward",
    "ex5-flash-backward",
]

# A snippet whose one blank may take its time: the fairness tests' jobs sleep in it.
SLOW_SNIPPET = """---
title: Slow answer
summary: a blank whose answer may take its time
level: 1
---

```python
value = {{c1::0}}
```

```python check
assert value == 0, "value 应为 0"
```
"""


def run_python(*args: str) -> subprocess.CompletedProcess:
    """`python *args` in the project's directory (a benchmark's short run), its output kept; a
    benchmark's app sizes itself on a few masks (BENCH_SAMPLES)."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "BENCH_SAMPLES": "10"},
    )


def attempts_of(store, learner: str, snippet_id: str | None = None, limit: int = 50) -> list[dict]:
    """A learner's stored attempts, newest first, as plain dicts."""
    query = select(attempts).where(attempts.c.learner == learner)
    if snippet_id:
        query = query.where(attempts.c.snippet_id == snippet_id)
    with store.engine.connect() as db:
        return [dict(r._mapping) for r in db.execute(query.order_by(attempts.c.id.desc()).limit(limit))]


def responses_of(store, attempt_id: int) -> list[dict]:
    """An attempt's stored short answers, by question."""
    query = select(responses).where(responses.c.attempt_id == attempt_id).order_by(responses.c.question)
    with store.engine.connect() as db:
        return [dict(r._mapping) for r in db.execute(query)]


def eventually(check, seconds: float = 30.0):
    """`check()`'s first truthy result, polled every 0.1 s; fails the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.1)
    return found
