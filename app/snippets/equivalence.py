"""Telling a likely equivalent mutant from one the check merely misses.

A surviving mutant runs again under other seeds (every `torch.manual_seed` / `random.seed` the
check calls is shifted by k), traced: which lines of the code ran, what each of the code's
functions returned, and what values the code and check left behind (numbers, strings, tensors by
shape and moments). A mutant is likely equivalent only when its mutated line ran and all of that
matches the reference code's under every seed; code the check never runs is never "equivalent".
"""

import json
import math

from ..sandbox.types import Job

MARK = "\x00codecloze-observed:"
_TOLERANCE = (1e-5, 1e-4)  # absolute, relative: floating-point reordering is no change
_RETURNS_KEPT = 4000

# Runs first: the check's own seeding lands elsewhere, and the code's lines and returns are traced.
_PRELUDE = """
import random as _random, sys as _sys
_random_seed = _random.seed
_random.seed = lambda a=0, *rest, **kw: _random_seed(hash(a) + {k}, *rest, **kw)
_random.seed(0)
try:
    import torch as _torch
except ImportError:
    _torch = None
if _torch is not None:
    _manual_seed = _torch.manual_seed
    _torch.manual_seed = lambda s: _manual_seed(int(s) + {k})
    _torch.manual_seed(0)


def _digest(value, depth=0):
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, str):
        return value[:200]
    if _torch is not None and isinstance(value, _torch.Tensor):
        v = value.detach().double().flatten()
        w = _torch.arange(1, v.numel() + 1, dtype=v.dtype)
        return [list(value.shape), str(value.dtype), *(float(x) for x in (v.sum(), v.abs().sum(), (v * w).sum()))]
    if isinstance(value, list | tuple) and len(value) <= 64 and depth < 3:
        return [_digest(x, depth + 1) for x in value]
    return type(value).__name__


_lines, _returns = set(), []


def _local(frame, event, arg):
    if event == "line":
        _lines.add(frame.f_lineno)
    elif event == "return" and len(_returns) < {kept}:
        _returns.append([frame.f_code.co_name, _digest(arg)])
    return _local


def _trace(frame, event, arg):
    if frame.f_code.co_filename != "<code>":
        return None
    _lines.add(frame.f_lineno)
    return _local


_sys.settrace(_trace)
"""

# Runs last: what was traced and what the code and check left behind, as one marked line of JSON.
_OBSERVE = """
_sys.settrace(None)
print("\\n" + {mark!r} + __import__("json").dumps({{
    "lines": sorted(_lines), "returns": _returns,
    "values": {{k: _digest(v) for k, v in list(globals().items())
               if not k.startswith("_") and isinstance(_digest(v), int | float | str | list)
               and not callable(v) and type(v).__name__ != "module"}}}}))
"""


def observed_job(snippet, code: str, k: int) -> Job:
    return Job(
        parts=(
            ("seed", _PRELUDE.format(k=k, kept=_RETURNS_KEPT)),
            ("setup", snippet.setup),
            ("code", code),
            ("check", snippet.check),
            ("observe", _OBSERVE.format(mark=MARK)),
        )
    )


def observation(verdict) -> tuple[str, dict | None]:
    """The run's status and, when it passed, what it observed (None when nothing was printed)."""
    if verdict is None:
        return "not run", None
    _, found, text = (verdict.stdout or "").rpartition(MARK)
    try:
        seen = json.loads(text.splitlines()[0]) if found and text else None
    except (ValueError, IndexError, RecursionError):
        seen = None
    return verdict.status, seen if isinstance(seen, dict) else None


def same_observation(reference, mutant, line: int) -> bool:
    """Whether the mutant's run, whose mutated `line` must have run, matches the reference's."""
    (status_a, seen_a), (status_b, seen_b) = observation(reference), observation(mutant)
    if status_a != "passed" or status_b != "passed" or seen_a is None or seen_b is None:
        return False
    if line not in seen_b.get("lines", ()):
        return False  # the check never ran that line: nothing says the change is harmless
    return (
        seen_a.get("lines") == seen_b.get("lines")
        and _close(seen_a.get("returns"), seen_b.get("returns"))
        and _close(seen_a.get("values"), seen_b.get("values"))
    )


def _close(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or a is None:
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= _TOLERANCE[0] + _TOLERANCE[1] * abs(a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return False
