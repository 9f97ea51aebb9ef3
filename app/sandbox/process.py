"""The server's handle on one job process: its pipes, its deadline, and the verdict it earns.

Limits are judged here, outside the job: the wall clock, the output volume, and how the
process died. What the job reports about itself only fills in the rest.
"""

import os
import signal
import time

from . import framing, reports
from .outcome import Capture, outcome

WALL_GRACE = 0.5  # the job's own timer reports first, with the line it stopped on
SETUP_DEADLINE = 30.0  # a job process that is not ready by then is killed


class JobProcess:
    def __init__(self, slot: int, fds: list[int], limits: dict, work_dir: str | None):
        self.slot, self.limits, self.work_dir = slot, limits, work_dir
        self.pidfd, self.job_w, self.result_r, out_r, err_r = fds
        for fd in (self.result_r, out_r, err_r):
            os.set_blocking(fd, False)
        self.captures = {out_r: Capture(limits["output_bytes"]), err_r: Capture(limits["output_bytes"])}
        self.frames = framing.FrameBuffer(limit=1 << 20)
        self.ready: dict | None = None
        self.report: dict | None = None
        self.request_id = None
        self.kill_reason: str | None = None
        self.answer_by: float | None = None  # set once its verdict may go out before the reap
        self.answered = False
        self.killed = False  # SIGKILL sent: it is ending, whatever it was doing
        self.started = time.monotonic()
        self.deadline = self.started + SETUP_DEADLINE

    @property
    def read_fds(self) -> list[int]:
        return [self.result_r, *self.captures]

    def on_readable(self, fd: int) -> bool:
        """Takes in what is there; False at end of file."""
        chunk = _read(fd)
        if chunk is None:
            return True
        if chunk:
            self._consume(fd, chunk)
        return bool(chunk)

    def drain(self) -> None:
        """After the exit: every writer is gone, so this reads to the end."""
        for fd in self.read_fds:
            while chunk := _read(fd):
                self._consume(fd, chunk)

    def _consume(self, fd: int, chunk: bytes) -> None:
        if fd in self.captures:
            self.captures[fd].add(chunk)
            if self.captures[fd].flooding:
                self.kill("output")
            return
        if self.report is not None or self.kill_reason == "unreadable":
            return  # it is being killed: nothing more it says counts
        try:
            for frame in self.frames.feed(chunk):
                self._on_frame(reports.job_frame(frame, self.ready is not None))
        except framing.FrameError:
            self.kill("unreadable")

    def _on_frame(self, frame: dict) -> None:
        if "ready" in frame:
            self.ready = frame["ready"]
        elif self.report is None:
            self.report = frame
            self.kill(None)  # it exits by itself; this makes sure of it

    def start(self, request_id, job: dict) -> None:
        self.request_id = request_id
        self.started = time.monotonic()
        self.deadline = self.started + self.limits["wall_seconds"] + WALL_GRACE
        try:
            framing.write_frame(self.job_w, job)
        except OSError:
            pass  # it died meanwhile: the exit report says how
        os.close(self.job_w)
        self.job_w = -1

    def kill(self, reason: str | None) -> None:
        if reason and not self.kill_reason and self.report is None:
            self.kill_reason = reason
        self.killed = True
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        for fd in [self.pidfd, self.job_w, *self.read_fds]:
            if fd >= 0:
                os.close(fd)

    def verdict(self, status: int, cpu: float) -> dict:
        if self.report is None and self.frames.pending:
            self.kill_reason = self.kill_reason or "unreadable"  # it ended in the middle of a frame
        out, err = (c.text() for c in self.captures.values())
        base = {
            "stdout": out,
            "stderr": err,
            "seconds": round(time.monotonic() - self.started, 4),
            "part": None,
            "line": None,
            "column": None,
        }
        return base | outcome(self.limits, self.kill_reason, self.report, status, cpu)


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
