"""How a finished job is judged, from the outside in."""

import os
import signal

from .types import STATUSES

OUTPUT_KILL_FACTOR = 16  # a stream this many times over what is kept stops the job
MESSAGE_CHARS = 2000


class Capture:
    def __init__(self, keep: int):
        self.keep, self.total, self.data = keep, 0, bytearray()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    @property
    def flooding(self) -> bool:
        return self.total > self.keep * OUTPUT_KILL_FACTOR

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        if self.total > self.keep:
            text += f"\n[output truncated: {self.total} bytes written, first {self.keep} kept]"
        return text


def _stopped_by_server(reason: str, limits: dict) -> dict:
    status, message = {
        "wall": ("timeout", f"wall-clock limit ({limits['wall_seconds']:g} s) reached"),
        "memory": (
            "memory",
            f"memory limit ({limits['memory_bytes'] >> 20} MiB) reached by the job's processes together",
        ),
        "processes": ("error", f"process limit ({limits['max_processes']}) reached"),
        "output": ("output", f"output limit reached ({limits['output_bytes'] * OUTPUT_KILL_FACTOR} bytes)"),
        "cancelled": ("error", "cancelled: nobody was waiting for the verdict any more"),
        "cpu": ("timeout", f"CPU time limit ({limits['cpu_seconds']:g} s) reached by the job's processes together"),
        "unreadable": ("crashed", "the job process wrote something that is not a report to its result pipe"),
    }[reason]
    return {"status": status, "message": message}


def _ended(status: int, cpu: float, limits: dict) -> dict:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGKILL and cpu >= limits["cpu_seconds"]:  # RLIMIT_CPU's hard kill
            return {"status": "timeout", "message": f"CPU time limit ({limits['cpu_seconds']:g} s) reached"}
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return {"status": "crashed", "message": f"killed by {name} ({signal.strsignal(sig)})"}
    code = os.waitstatus_to_exitcode(status)
    return {"status": "error", "message": f"exited with code {code} before the check finished"}


def outcome(limits: dict, kill_reason: str | None, report: dict | None, status: int, cpu: float) -> dict:
    """Status and message: what the server stopped the job for, else the job's own report,
    else how its process ended."""
    if kill_reason in ("wall", "memory", "processes", "output", "cancelled", "unreadable", "cpu"):
        return _stopped_by_server(kill_reason, limits)
    result = (report or {}).get("result")
    if isinstance(result, dict):
        return _checked(result)
    if report and "setup_error" in report:
        return {"status": "error", "message": f"sandbox: {report['setup_error']}"[:MESSAGE_CHARS]}
    return _ended(status, cpu, limits)


def _checked(result: dict) -> dict:
    """The job's own report, reduced to well-formed fields."""
    status = result.get("status") if result.get("status") in STATUSES else "error"
    line, column = result.get("line"), result.get("column")
    part = result.get("part")
    return {
        "status": status,
        "message": str(result.get("message", ""))[:MESSAGE_CHARS],
        "part": part if isinstance(part, str) else None,
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
        "column": column if isinstance(column, int) and not isinstance(column, bool) else None,
    }
