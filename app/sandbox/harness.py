"""Inside a job process: run the parts in one globals dict and say how it ended.

The result is self-reported, so it only decides between outcomes the learner could fake
anyway (passed/failed/error); every limit is also enforced from outside by the server.
"""

import builtins
import linecache
import os
import random
import signal
import sys
import traceback

MESSAGE_CHARS = 2000
_ALLOCATION_FAILURES = ("can't allocate memory", "not enough memory", "out of memory")


class LimitReached(BaseException):
    """Raised from a timer signal; BaseException so `except Exception` does not swallow it."""


class _Timers:
    def __init__(self, cpu_seconds: float, wall_seconds: float):
        self.cpu, self.wall, self.armed = cpu_seconds, wall_seconds, False

    def _fire(self, signum, frame):
        if self.armed:
            self.armed = False
            if signum == signal.SIGPROF:
                raise LimitReached(f"CPU time limit ({self.cpu:g} s) reached")
            raise LimitReached(f"wall-clock limit ({self.wall:g} s) reached")

    def arm(self) -> None:
        signal.signal(signal.SIGPROF, self._fire)
        signal.signal(signal.SIGALRM, self._fire)
        self.armed = True
        signal.setitimer(signal.ITIMER_PROF, self.cpu)
        signal.setitimer(signal.ITIMER_REAL, self.wall)

    def disarm(self) -> None:
        self.armed = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)


def reseed() -> None:
    """Forked jobs would all share the zygote's RNG state."""
    seed = int.from_bytes(os.urandom(8), "little")
    random.seed(seed)
    if "torch" in sys.modules:
        sys.modules["torch"].default_generator.manual_seed(seed)  # manual_seed also probes GPUs
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed % (1 << 32))


def _location(exc: BaseException, files: dict[str, str]) -> tuple[str | None, int | None, int | None]:
    """The innermost frame in one of the parts (the learner's line, not torch's): part, line and
    1-based column of the failing expression where Python knows it."""
    if isinstance(exc, SyntaxError) and exc.filename in files:
        return files[exc.filename], exc.lineno, exc.offset
    found = (None, None, None)
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in files:
            found = (files[code.co_filename], tb.tb_lineno, _column(code, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    return found


def _column(code, lasti: int, line: int) -> int | None:
    """The 1-based column of the instruction at `lasti` (Python 3.11's positions), if on `line`."""
    try:
        start, _end, column, _end_column = list(code.co_positions())[lasti // 2]
    except (IndexError, ValueError):
        return None
    return column + 1 if start == line and column is not None else None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg}"
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): the code exited before the check finished"
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def _status(exc: BaseException, part: str | None, check_part: str) -> str:
    if isinstance(exc, LimitReached):
        return "timeout"
    if isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and any(s in str(exc) for s in _ALLOCATION_FAILURES)
    ):
        return "memory"
    if isinstance(exc, AssertionError) and part == check_part:
        return "failed"
    return "error"


def _print_traceback(exc: BaseException) -> None:
    """Learner-facing traceback: harness frames left out, part sources shown."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    text = "".join(
        ["Traceback (most recent call last):\n"] * bool(frames)
        + traceback.format_list(frames)
        + traceback.format_exception_only(type(exc), exc)
    )
    sys.stderr.write(text)


def _memory_message(exc: BaseException, limits: dict) -> str:
    mib = int(limits["memory_bytes"]) >> 20
    return f"memory limit ({mib} MiB) reached: {_describe(exc)}"


def run_parts(job: dict, limits: dict) -> dict:
    """Runs the parts; returns status, message, part, line. Processes the code forks end here."""
    owner = os.getpid()
    parts = [(str(name), str(src)) for name, src in job["parts"]]
    files = {f"<{name}>": name for name, _ in parts}
    for name, src in parts:  # tracebacks and inspect can then show the learner's lines
        linecache.cache[f"<{name}>"] = (len(src), None, src.splitlines(True), f"<{name}>")
    timers = _Timers(float(limits["cpu_seconds"]), float(limits["wall_seconds"]))
    scope = {"__name__": "__main__", "__builtins__": builtins}
    try:
        timers.arm()
        for name, src in parts:
            exec(compile(src, f"<{name}>", "exec", dont_inherit=True), scope)
        timers.disarm()
    except BaseException as exc:  # noqa: B902 - everything the learner's code can raise
        timers.disarm()
        if os.getpid() != owner:
            os._exit(1)
        part, line, column = _location(exc, files)
        status = _status(exc, part, job.get("check_part", "check"))
        if status == "memory":
            message = _memory_message(exc, limits)
        else:  # an assertion's own message, or the limit; else the exception as Python prints it
            message = str(exc) if status in ("failed", "timeout") else ""
            message = message or _describe(exc)
        if status in ("error", "failed"):
            _print_traceback(exc)
        return {"status": status, "message": message[:MESSAGE_CHARS], "part": part, "line": line, "column": column}
    if os.getpid() != owner:
        os._exit(0)
    return {"status": "passed", "message": "", "part": None, "line": None, "column": None}
