"""The fork server, started by the web app as a fresh process (never forked from it).

It forks the zygote (which imports torch) before importing anything heavy itself, keeps a
few confined job processes ready, hands each request to one of them, enforces the limits
from outside, and answers with a verdict once nothing of the job and what it started can run.
One thread, one selector: requests from the web app, the zygote's messages, job pipes.
"""

import collections
import json
import os
import selectors
import signal
import socket
import sys
import time

from . import cgroups, framing, linux, policy
from .outside import OutsideLimits
from .pool import Pool
from .status import usage

ANSWER_POLL = 0.0002  # seconds between looks at a killed tree (its threads leave user mode almost at once)


class Server:
    def __init__(self, ctrl: socket.socket, config: dict):
        if config.get("uid_base") is None:
            config["uid_base"] = policy.pick_uid_base()
        self.ctrl, self.config = ctrl, config
        self.selector = selectors.DefaultSelector()
        self.pool = Pool(config, self.selector, self)
        self.pending: collections.deque = collections.deque()  # (request id, job)
        self.frames = framing.FrameBuffer()
        self.announcement: dict | None = None
        self.zygote_pid: int | None = None

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            from . import zygote

            zygote.main(theirs, self.config)
        theirs.close()
        self.zsock, self.zygote_pid = ours, pid
        ours.settimeout(300)  # importing torch from a cold disk
        try:
            message, _ = self.receive()
        except (EOFError, OSError) as exc:
            raise RuntimeError(f"zygote failed to start ({exc}); see the server's stderr") from exc
        ours.settimeout(None)
        if "zygote" not in message:
            raise RuntimeError(f"zygote failed to start: {message}")
        self.zygote = message["zygote"]
        self.outside = OutsideLimits(self.config["limits"], self.zygote["anon_bytes"], self.pool.cgroups)
        self.pool.start(ours, self.zygote)

    def receive(self) -> tuple[dict, list[int]]:
        data, fds, _, _ = socket.recv_fds(self.zsock, 1 << 16, 8)
        if not data:
            raise EOFError("zygote exited")
        return json.loads(data), fds

    # -- called back by the pool -----------------------------------------------------------
    def deliver(self, request_id, verdict: dict) -> None:
        self.send({"done": request_id, "verdict": verdict})

    def probed(self, report: dict) -> None:
        stdlib = report.pop("stdlib_importable", False)
        if not stdlib:
            print("codecloze sandbox: jobs cannot import the standard library", file=sys.stderr)
        # Sent once the pool of ready job processes is full, so that the first request is fast too.
        # Enforced by this server on every host, whatever the probe found.
        report |= {"wall_clock_limit": True, "process_tree_limits": True, **cgroups.protections(self.pool.cgroups)}
        accounting = cgroups.accounting(self.pool.cgroups, self.pool.cgroups_not_used)
        view = self.zygote.get("view") or {}
        self.announcement = {
            "ready": {
                "protections": report,
                "plan": self.pool.plan,
                "accounting": accounting,
                "root_view": view.get("root", []),
                "stdlib_importable": stdlib,
                **self.pids(),
            }
        }

    # -- the web app's side ----------------------------------------------------------------
    def on_ctrl(self) -> None:
        data = self.ctrl.recv(1 << 20)
        if not data:
            raise EOFError("web app went away")
        for frame in self.frames.feed(data):
            if "run" in frame:
                self.pending.append((frame["run"], frame["job"]))
            elif "status" in frame:
                self.send({"status": frame["status"], "info": self.status()})
            elif "cancel" in frame:
                self.cancel(frame["cancel"])

    def cancel(self, request_id) -> None:
        self.pending = collections.deque(item for item in self.pending if item[0] != request_id)
        for proc in self.pool.procs.values():
            if proc.request_id == request_id:
                proc.kill("cancelled")

    def send(self, message: dict) -> None:
        self.ctrl.sendall(framing.encode(message))

    def pids(self) -> dict:
        zygotes = sorted({self.zygote_pid, self.zygote["pid"]})
        return {"server_pid": os.getpid(), "zygote_pid": self.zygote_pid, "zygote_pids": zygotes}

    def status(self) -> dict:
        return {
            **self.pids(),
            **self.pool.counts(),
            "uid_base": self.config["uid_base"],
            "pending": len(self.pending),
            "memory": usage([os.getpid(), *self.pids()["zygote_pids"]]),
        }

    # -- the loop --------------------------------------------------------------------------
    def serve(self) -> None:
        self.selector.register(self.ctrl, selectors.EVENT_READ, self.on_ctrl)
        self.selector.register(self.zsock, selectors.EVENT_READ, lambda: self.pool.on_zygote(*self.receive()))
        while True:
            for key, _ in self.selector.select(self._timeout()):
                if self.selector.get_map().get(key.fd) is not key:
                    continue  # unregistered (and its fd closed) by an earlier event in this batch
                key.data()
            self.pool.answer_exiting()
            if self.pool.probe_slot is None:
                self.pool.dispatch(self.pending)
            if self.announcement and len(self.pool.ready) >= self.pool.workers:
                self.send(self.announcement)
                self.announcement = None

    def _timeout(self) -> float | None:
        """Until the next limit is due, or a moment while a killed tree is still leaving user mode."""
        wake = self.outside.enforce(list(self.pool.procs.values()))
        if not self.pool.answering:
            return wake
        return ANSWER_POLL if wake is None else min(wake, ANSWER_POLL)

    def shutdown(self) -> None:
        self.pool.close()
        if self.zygote_pid:
            self.zsock.close()  # the zygote kills whatever is left and exits
            _wait_or_kill(self.zygote_pid, 3.0)
        self.pool.close_cgroups()


def _wait_or_kill(pid: int, seconds: float) -> None:
    end = time.monotonic() + seconds
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        time.sleep(0.01)


def main(fd: int) -> None:
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the web app
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    ctrl = socket.socket(fileno=fd)
    server = Server(ctrl, framing.read_frame_blocking(ctrl.fileno()))
    try:
        server.start()
        server.serve()
    except EOFError:
        pass
    except Exception as exc:  # noqa: BLE001 - tell the web app why, then exit
        try:
            server.send({"error": f"{type(exc).__name__}: {exc}"})
        except OSError:
            pass
        raise
    finally:
        server.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]))
