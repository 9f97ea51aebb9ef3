"""Traced runs of the reference code and of surviving mutants: what a teacher's hint is made of.

A run is traced: which lines of the code ran, what each of the code's functions returned, and
what values the code and check left behind (numbers, strings, tensors by shape and moments). The
reference also answers *probes* (probes.py): at a survivor's line, whether the original and the
mutated expression had the same value; at a condition, which way it went; at a call, whether a
default was used. Runs with k > 0 shift every `torch.manual_seed` / `random.seed` the check calls
by k. A survivor whose runs under shifted seeds match the reference's is *likely equivalent*: a
hint for the teacher, never a verdict (equal traces often mean only that the check's data made
two sizes equal or never took a branch).
"""

import json
import math

from ..sandbox.types import Job

MARK = "\x00codecloze-observed:"
_TOLERANCE = (1e-5, 1e-4)  # absolute, relative: floating-point reordering is no change
_RETURNS_KEPT = 4000
PROBED_TIMES = 200  # evaluations of one probe at most: a hot loop's line is answered by its first ones

# Runs first: the check's own seeding lands elsewhere, the code's lines and returns are traced,
# and the probes are answered where their line runs or their function is called.
_PRELUDE = """
import random as _random, sys as _sys, json as _json
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
_probes = _json.loads({probes!r})
_at_line, _at_call = {{}}, {{}}
for _p in _probes:
    _p.update(n=0, same=0, seen=[])
    if "call" in _p:
        _at_call.setdefault(_p["call"][0], []).append(_p)
    else:
        _at_line.setdefault(_p["line"], []).append(_p)


def _value(source, frame):
    try:
        v = eval(source, frame.f_globals, frame.f_locals)
    except Exception:
        return False, None
    data = isinstance(v, bool | int | float | str | list | tuple) or v is None
    if not (data or (_torch is not None and isinstance(v, _torch.Tensor))):
        return False, None  # a function, a module, an object: equal digests would say nothing
    return True, _digest(v)


def _answer(p, frame):
    if p["n"] >= {times}:
        return
    if "exprs" in p:
        ok_a, a = _value(p["exprs"][0], frame)
        ok_b, b = _value(p["exprs"][1], frame)
        if ok_a and ok_b:
            p["n"] += 1
            p["same"] += a == b
            if len(p["seen"]) < 3 and [a, b] not in p["seen"]:
                p["seen"].append([a, b])
    elif "test" in p:
        ok, v = _value("bool(" + p["test"] + ")", frame)
        if ok:
            p["n"] += 1
            p["same"] += bool(v)
    elif p["param"] in frame.f_locals:
        v = frame.f_locals[p["param"]]
        p["n"] += 1
        p["same"] += type(v) is type(p["default"]) and v == p["default"]


def _local(frame, event, arg):
    if event == "line":
        _lines.add(frame.f_lineno)
        for p in _at_line.get(frame.f_lineno, ()):
            _answer(p, frame)
    elif event == "return" and len(_returns) < {kept}:
        _returns.append([frame.f_code.co_name, _digest(arg)])
    return _local


def _trace(frame, event, arg):
    if frame.f_code.co_filename != "<code>":
        return None
    _lines.add(frame.f_lineno)
    for p in _at_call.get(frame.f_code.co_name, ()):
        if p["call"][1] <= frame.f_code.co_firstlineno <= p["call"][2]:
            _answer(p, frame)
    return _local


_sys.settrace(_trace)
"""

# Runs last: what was traced and what the code and check left behind, as one marked line of JSON.
_OBSERVE = """
_sys.settrace(None)
print("\\n" + {mark!r} + _json.dumps({{
    "lines": sorted(_lines), "returns": _returns,
    "probes": [{{"id": p["id"], "n": p["n"], "same": p["same"], "seen": p["seen"]}} for p in _probes],
    "values": {{k: _digest(v) for k, v in list(globals().items())
               if not k.startswith("_") and isinstance(_digest(v), int | float | str | list)
               and not callable(v) and type(v).__name__ != "module"}}}}))
"""


def observed_job(snippet, code: str, k: int, probes: tuple[dict, ...] = ()) -> Job:
    return Job(
        parts=(
            ("seed", _PRELUDE.format(k=k, kept=_RETURNS_KEPT, times=PROBED_TIMES, probes=json.dumps(list(probes)))),
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
