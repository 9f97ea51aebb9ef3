"""Many mutants in one sandbox job: the check's setup, a mutant and the check, each mutant in a
fresh scope of one process, instead of one forked process per mutant.

A job's fork, confinement and reap cost 10–25 ms of CPU (bench/RESULTS.md) against ~1 ms for the
check itself, so an analysis of hundreds of mutants was mostly process overhead. Each mutant still
starts from nothing the previous one left: a new globals dict, the setup run again, the random
generators reseeded from the OS as a job of its own would be, torch's gradient mode and default
dtype restored. A mutant whose batch ended before it was reported (a time or memory limit, a crash)
is run again as a job of its own, so its status is the one the one-job-per-mutant analysis gives.
"""

import json

from ..sandbox.types import Job

MARK = "\x00codecloze-batch:"
SIZE = 32  # mutants per job at most: the overhead spread thin
# What a batch should take: a learner's job that finds every worker busy with an analysis waits
# for one batch, so batches stay short (one mutant per job took 15–25 ms, mostly the fork).
BATCH_SECONDS = 0.1

# Statuses as the sandbox's harness names them: "failed" only for an assertion of the check.
_DRIVER = """
import builtins as _builtins, io as _io, json as _json, os as _os, random as _random, sys as _sys

_setup = compile({setup!r}, "<setup>", "exec", dont_inherit=True)
_check = compile({check!r}, "<check>", "exec", dont_inherit=True)
_codes = _json.loads({codes!r})
_torch = _sys.modules.get("torch")
_numpy = _sys.modules.get("numpy")
_dtype = _torch.get_default_dtype() if _torch else None
_out, _err = _sys.stdout, _sys.stderr
_ALLOCATION = ("can't allocate memory", "not enough memory", "out of memory")


class _Null(_io.TextIOBase):
    def write(self, text):
        return len(text)


def _fresh():
    seed = int.from_bytes(_os.urandom(8), "little")
    _random.seed(seed)
    if _torch is not None:
        _torch.default_generator.manual_seed(seed)
        _torch.set_grad_enabled(True)
        _torch.set_default_dtype(_dtype)
    if _numpy is not None:
        _numpy.random.seed(seed % (1 << 32))


def _status(exc, part):
    if isinstance(exc, MemoryError) or (isinstance(exc, RuntimeError) and any(s in str(exc) for s in _ALLOCATION)):
        return "memory"
    return "failed" if isinstance(exc, AssertionError) and part == "check" else "error"


for _n, _source in enumerate(_codes):
    _fresh()
    _scope, _part = {{"__name__": "__main__", "__builtins__": _builtins}}, "setup"
    _sys.stdout = _sys.stderr = _Null()  # what a mutant prints is not a result
    try:
        exec(_setup, _scope)
        _part = "code"
        exec(compile(_source, "<code>", "exec", dont_inherit=True), _scope)
        _part = "check"
        exec(_check, _scope)
        _result = "passed"
    except (Exception, SystemExit) as _exc:  # not the harness's limits: those end the batch
        _result = _status(_exc, _part)
    finally:
        _sys.stdout, _sys.stderr = _out, _err
    del _scope
    print({mark!r} + _json.dumps([_n, _result]), flush=True)
"""


def batch_size(pace_seconds: float | None) -> int:
    """Mutants per job at `pace_seconds` each (one when the pace is unknown): as many as fit
    BATCH_SECONDS, so a slow check gets small batches, never ones that keep learners waiting."""
    if pace_seconds is None:
        return 1
    return max(1, min(SIZE, int(BATCH_SECONDS / max(pace_seconds, 1e-4))))


def batch_job(snippet, codes: list[str]) -> Job:
    """One job that runs the snippet's setup, each of `codes` and the check, and reports each."""
    driver = _DRIVER.format(setup=snippet.setup, check=snippet.check, codes=json.dumps(codes), mark=MARK)
    return Job(parts=(("batch", driver),), check_part="batch")


def batch_statuses(verdict, count: int) -> list[str | None]:
    """Each code's status as the batch reported it; None for those it never reported."""
    out: list[str | None] = [None] * count
    for line in (verdict.stdout if verdict is not None else "").splitlines():
        _, found, text = line.partition(MARK)
        if not found:
            continue
        try:
            n, status = json.loads(text)
        except (ValueError, TypeError):
            continue
        if isinstance(n, int) and 0 <= n < count and isinstance(status, str):
            out[n] = status
    return out
