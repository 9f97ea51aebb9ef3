"""The fork server: `python -m app.sandbox.server FD`, started by the web app, never forked from it.

It forks the zygote (which imports torch) before importing anything heavy itself, keeps a
few confined job processes ready, hands each request to one of them, enforces the limits
from outside and answers with a verdict once the job and everything it started are gone.
"""
import collections
import json
import os
import selectors
import signal
import socket
import sys
import time

from . import framing, linux, policy
from .process import JobProcess
from .status import usage

PROBE = "probe"


class Server:
    def __init__(self, ctrl: socket.socket, config: dict):
        self.ctrl, self.config, self.limits = ctrl, config, config["limits"]
        self.workers = max(1, int(config["workers"]))
        self.free_slots = collections.deque(range(max(3, 3 * self.workers)))
        self.spawning: set[int] = set()
        self.procs: dict[int, JobProcess] = {}
        self.ready: collections.deque[JobProcess] = collections.deque()
        self.pending: collections.deque = collections.deque()
        self.selector = selectors.DefaultSelector()
        self.frames = framing.FrameBuffer()
        self.work_dirs = policy.WorkDirs()
        self.plan: dict = {}
        self.failures = 0
        self.zygote: dict = {}
        self.work_dir_of: dict[int, str | None] = {}
        self.probe_slot: int | None = None
        self.started = False  # the probe has answered; jobs can be taken
        self.announcement: dict | None = None

    # -- start-up --------------------------------------------------------------------------
    def start_zygote(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            from . import zygote
            zygote.main(theirs, self.config)
        theirs.close()
        self.zsock, self.zygote_pid = ours, pid
        ours.settimeout(300)  # importing torch on a cold disk
        message, _ = self.receive()
        ours.settimeout(None)
        if "zygote" not in message:
            raise RuntimeError(f"zygote failed to start: {message}")
        self.zygote = message["zygote"]
        self.plan = policy.probe_plan(self.zygote, self.config.get("namespaces", True))
        self.probe_slot = self.free_slots.popleft()
        self.spawn(self.probe_slot, strict=False)

    def receive(self) -> tuple[dict, list[int]]:
        data, fds, _, _ = socket.recv_fds(self.zsock, 1 << 16, 8)
        if not data:
            raise EOFError("zygote exited")
        return json.loads(data), fds

    def spawn(self, slot: int, strict: bool = True) -> None:
        uid = self.config["uid_base"] + slot if self.plan.get("unprivileged_uid") else None
        work_dir = None if self.plan.get("private_view") and strict else self.work_dirs.create(uid)
        request = {"slot": slot, "plan": self.plan | {"uid": uid}, "limits": self.limits,
                   "work_dir": work_dir, "strict": strict}
        self.zsock.send(json.dumps(request).encode())
        self.spawning.add(slot)
        self.work_dir_of[slot] = work_dir

    # -- events --------------------------------------------------------------------------
    def on_zygote(self, _) -> None:
        message, fds = self.receive()
        slot = message.get("spawned", message.get("spawn_failed", message.get("exited")))
        if "spawned" in message:
            self.spawning.discard(slot)
            proc = JobProcess(slot, fds, self.limits, self.work_dir_of.pop(slot, None))
            proc.pid, proc.pid_namespace, proc.state = message["pid"], message["pid_namespace"], "starting"
            self.procs[slot] = proc
            for fd in proc.read_fds:
                self.selector.register(fd, selectors.EVENT_READ, (self.on_job_output, proc))
        elif "spawn_failed" in message:
            self.spawning.discard(slot)
            policy.WorkDirs.remove(self.work_dir_of.pop(slot, None))
            self.free_slots.append(slot)
            self.count_failure(message["error"])
        else:
            self.on_exit(self.procs.pop(slot), message["status"], message["cpu"])

    def on_job_output(self, fd: int, proc: JobProcess) -> None:
        if not proc.on_readable(fd):
            self.selector.unregister(fd)
        if proc.state == "starting" and proc.ready is not None:
            proc.state, proc.deadline = "ready", float("inf")
            if proc.slot == self.probe_slot and not self.started:
                proc.state = "running"
                spec = policy.probe_spec(self.zygote, self.limits, self.config["data_dirs"])
                proc.start(PROBE, {"probe": spec})
            else:
                self.ready.append(proc)

    def on_exit(self, proc: JobProcess, status: int, cpu: float) -> None:
        for fd in proc.read_fds:
            if fd in self.selector.get_map():
                self.selector.unregister(fd)
        proc.drain()
        if proc in self.ready:
            self.ready.remove(proc)
        if proc.slot == self.probe_slot and not self.started:
            self.finish_probe(proc, status)
        elif proc.request_id is not None:
            self.send({"done": proc.request_id, "verdict": proc.verdict(status, cpu)})
            self.failures = 0
        else:
            self.count_failure((proc.report or {}).get("setup_error", f"job process ended early ({status})"))
        proc.close()
        policy.WorkDirs.remove(proc.work_dir)
        self.free_slots.append(proc.slot)

    def finish_probe(self, proc: JobProcess, status: int) -> None:
        report = ((proc.report or {}).get("result") or {}).get("probe")
        if not isinstance(report, dict):
            error = proc.verdict(status, 0.0)
            raise RuntimeError(f"sandbox probe failed: {error['message']} {error['stderr'][-2000:]}")
        self.plan = policy.strict_plan(proc.ready or {}, proc.pid_namespace)
        stdlib = report.pop("stdlib_importable", False)
        if not stdlib:
            print("codecloze sandbox: jobs cannot import the standard library", file=sys.stderr)
        self.started = True
        # Announced once the pool of ready job processes is full: the first request is fast too.
        self.announcement = {"ready": {"protections": report, "plan": self.plan, "stdlib_importable": stdlib,
                                       "server_pid": os.getpid(), "zygote_pid": self.zygote_pid}}

    def count_failure(self, error: str) -> None:
        print(f"codecloze sandbox: {error}", file=sys.stderr)
        self.failures += 1
        if self.failures >= 5:
            raise RuntimeError(f"job processes keep failing: {error}")

    def on_ctrl(self, _) -> None:
        data = self.ctrl.recv(1 << 20)
        if not data:
            raise EOFError("web app went away")
        for frame in self.frames.feed(data):
            if "run" in frame:
                self.pending.append((frame["run"], frame["job"]))
            elif "status" in frame:
                self.send({"status": frame["status"], "info": self.status()})

    def send(self, message: dict) -> None:
        self.ctrl.sendall(framing.encode(message))

    def status(self) -> dict:
        ready = [p.pid for p in self.ready]
        return {"server_pid": os.getpid(), "zygote_pid": self.zygote_pid, "ready_pids": ready,
                "running": sum(p.state == "running" for p in self.procs.values()),
                "starting": len(self.spawning) + sum(p.state == "starting" for p in self.procs.values()),
                "pending": len(self.pending), "memory": usage([os.getpid(), self.zygote_pid])}

    # -- the loop --------------------------------------------------------------------------
    def dispatch(self) -> None:
        while self.pending and self.ready:
            proc = self.ready.popleft()
            proc.state = "running"
            proc.start(*self.pending.popleft())
        idle = len(self.ready) + len(self.spawning) + sum(p.state == "starting" for p in self.procs.values())
        for _ in range(min(self.workers + len(self.pending) - idle, len(self.free_slots))):
            self.spawn(self.free_slots.popleft())

    def enforce_deadlines(self) -> float | None:
        now, nearest = time.monotonic(), None
        for proc in self.procs.values():
            if proc.deadline <= now:
                proc.kill("wall" if proc.state == "running" else "setup")
                proc.deadline = float("inf")
            elif proc.deadline != float("inf"):
                nearest = min(nearest or proc.deadline, proc.deadline)
        return None if nearest is None else max(0.0, nearest - now)

    def serve(self) -> None:
        self.selector.register(self.ctrl, selectors.EVENT_READ, (self.on_ctrl,))
        self.selector.register(self.zsock, selectors.EVENT_READ, (self.on_zygote,))
        while True:
            for key, _ in self.selector.select(self.enforce_deadlines()):
                handler, *args = key.data
                handler(key.fd, *args)
            if self.started:
                self.dispatch()
            if self.announcement and len(self.ready) >= self.workers:
                self.send(self.announcement)
                self.announcement = None

    def shutdown(self) -> None:
        for proc in self.procs.values():
            proc.kill(None)
        self.zsock.close()  # the zygote kills whatever is left and exits
        _wait_or_kill(self.zygote_pid, 3.0)
        for proc in self.procs.values():
            policy.WorkDirs.remove(proc.work_dir)
        self.work_dirs.close()


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
    config = framing.read_frame_blocking(ctrl.fileno())
    server = Server(ctrl, config)
    try:
        server.start_zygote()
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
        if hasattr(server, "zsock"):
            server.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]))
