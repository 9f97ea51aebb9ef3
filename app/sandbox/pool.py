"""The job processes: asked of the zygote, kept ready, given one job each, judged at the end.

A job process moves starting -> ready -> running and is done when the zygote reports that it
was reaped (a pid-namespace init exits only after everything in its namespace is gone). Its
verdict goes out before that once it has reported and every thread of its cgroup is exiting
(ending.py); its slot is reused only after the reap. The first job process is the probe,
which measures what the later ones will be confined with.
"""

import collections
import functools
import json
import selectors
import socket
import sys
import time

from . import ending, policy
from .cgroups import open_cgroups
from .process import JobProcess
from .status import pid_of

MAX_FAILURES = 5  # job processes failing in a row before the server gives up
EARLY_SECONDS = 0.05  # a reported tree not all exiting by then is answered at its reap


class Pool:
    def __init__(self, config: dict, selector: selectors.BaseSelector, owner):
        """owner.deliver(request_id, verdict) and owner.probed(report) are called back."""
        self.config, self.limits, self.selector, self.owner = config, config["limits"], selector, owner
        self.workers = max(1, int(config["workers"]))
        # Room for every job the client admits at once, the ready ones and the probe.
        jobs = max(self.workers, int(config.get("jobs", self.workers)))
        slots = min(policy.UID_BLOCK, max(3 * self.workers, jobs + self.workers + 1))
        self.free_slots = collections.deque(range(slots))
        self.spawning: dict[int, str | None] = {}  # slot -> its on-disk work dir, if any
        self.procs: dict[int, JobProcess] = {}
        self.ready: collections.deque[JobProcess] = collections.deque()
        self.work_dirs = policy.WorkDirs()
        self.plan: dict = {}
        self.failures = 0
        self.probe_slot: int | None = None
        self.answering: list[JobProcess] = []  # reported, killed, waiting to be all exiting
        self.answered_early = 0
        self.cgroups, self.cgroups_not_used = open_cgroups(self.limits, self.workers, config.get("cgroups", True))

    def start(self, zsock: socket.socket, zygote: dict) -> None:
        self.zsock, self.zygote = zsock, zygote
        self.plan = policy.probe_plan(zygote, self.config.get("namespaces", True))
        self.probe_slot = self.free_slots.popleft()
        self.spawn(self.probe_slot, strict=False)

    def spawn(self, slot: int, strict: bool = True) -> None:
        uid = self.config["uid_base"] + slot if self.plan.get("unprivileged_uid") else None
        # The probe tries a private /tmp and falls back to /; later jobs get an on-disk work dir
        # exactly when the probe found that a private one is not possible.
        on_disk = not self.plan.get("private_view") or not self.plan.get("mount_namespace")
        work_dir = self.work_dirs.create(uid) if on_disk else None
        request = {
            "slot": slot,
            "plan": self.plan | {"uid": uid},
            "limits": self.limits,
            "work_dir": work_dir,
            "strict": strict,
        }
        self.zsock.send(json.dumps(request).encode())
        self.spawning[slot] = work_dir

    def on_zygote(self, message: dict, fds: list[int]) -> None:
        if "spawned" in message:
            slot = message["spawned"]
            proc = JobProcess(slot, fds, self.limits, self.spawning.pop(slot))
            proc.pid, proc.pid_namespace, proc.state = pid_of(fds[0]), message["pid_namespace"], "starting"
            self.procs[slot] = proc
            self.enter_cgroups(proc)
            for fd in proc.read_fds:
                self.selector.register(fd, selectors.EVENT_READ, functools.partial(self.on_output, fd, proc))
        elif "spawn_failed" in message:
            slot = message["spawn_failed"]
            policy.WorkDirs.remove(self.spawning.pop(slot))
            self.free_slots.append(slot)
            self.count_failure(message["error"])
        else:
            self.on_exit(self.procs.pop(message["exited"]), message["status"], message["cpu"])

    def enter_cgroups(self, proc: JobProcess) -> None:
        """Before it can be given a job; one that cannot be placed never gets one."""
        if self.cgroups is None:
            return
        try:
            self.cgroups.enter(proc.slot, proc.pid)
        except OSError as exc:
            proc.report = {"setup_error": f"cgroup: {exc}"}
            proc.kill(None)

    def on_output(self, fd: int, proc: JobProcess) -> None:
        if not proc.on_readable(fd):
            self.selector.unregister(fd)
        if proc.state == "starting" and proc.ready is not None:
            proc.state, proc.deadline = "ready", float("inf")
            if proc.slot == self.probe_slot:
                proc.state = "running"
                proc.start("probe", {"probe": policy.probe_spec(self.zygote, self.limits, self.config["data_dirs"])})
            else:
                self.ready.append(proc)
        elif proc.report is not None and proc.state == "running" and proc.answer_by is None:
            self.answer_soon(proc)

    def answer_soon(self, proc: JobProcess) -> None:
        """On its report: its whole tree is killed now, and its verdict goes out once none of
        that tree can run again. Without cgroups (no list of its threads) it waits for the reap."""
        if self.cgroups is None or proc.request_id is None or proc.slot == self.probe_slot:
            return
        if not self._kill_tree(proc):
            return
        proc.answer_by = time.monotonic() + EARLY_SECONDS
        self.answering.append(proc)
        self.answer_exiting()

    def _kill_tree(self, proc: JobProcess) -> bool:
        try:
            self.cgroups.kill_tree(proc.slot)
        except OSError:
            return False
        return True

    def answer_exiting(self) -> None:
        """Verdicts of the answering jobs whose every thread is exiting now."""
        now = time.monotonic()
        for proc in list(self.answering):
            try:
                ended = ending.all_exiting(functools.partial(self.cgroups.thread_ids, proc.slot))
            except OSError:
                ended = False
            if ended:
                self.answering.remove(proc)
                self.answer(proc, 0, 0.0)
                self.answered_early += 1
            elif now > proc.answer_by:
                self.answering.remove(proc)  # the reap answers it
            else:
                self._kill_tree(proc)  # a child a racing fork added since (v1 cannot stop those itself)

    def answer(self, proc: JobProcess, status: int, cpu: float) -> None:
        proc.drain()
        if self.cgroups is not None:
            cpu = max(cpu, self.cgroups.cpu_seconds(proc.slot))
            if self.cgroups.ran_out_of_memory(proc.slot):
                proc.kill_reason = "memory"  # the kernel killed one of its processes for memory
        self.owner.deliver(proc.request_id, proc.verdict(status, cpu))
        proc.answered = True
        self.failures = 0

    def on_exit(self, proc: JobProcess, status: int, cpu: float) -> None:
        for fd in proc.read_fds:
            if fd in self.selector.get_map():
                self.selector.unregister(fd)
        proc.drain()  # a setup error or report may have come with the exit
        if proc in self.ready:
            self.ready.remove(proc)
        if proc in self.answering:
            self.answering.remove(proc)
        if proc.slot == self.probe_slot:
            self.finish_probe(proc, status)
        elif proc.answered:
            pass
        elif proc.request_id is not None:
            self.answer(proc, status, cpu)
        else:
            self.count_failure((proc.report or {}).get("setup_error", f"job process ended early ({status})"))
        proc.close()
        policy.WorkDirs.remove(proc.work_dir)
        if not self.plan.get("private_view") and self.plan.get("unprivileged_uid"):
            policy.sweep_shared_dirs(self.config["uid_base"] + proc.slot)
        self.free_slots.append(proc.slot)

    def finish_probe(self, proc: JobProcess, status: int) -> None:
        self.probe_slot = None
        report = ((proc.report or {}).get("result") or {}).get("probe")
        if not isinstance(report, dict):
            error = proc.verdict(status, 0.0)
            raise RuntimeError(f"sandbox probe failed: {error['message']} {error['stderr'][-2000:]}")
        self.plan = policy.strict_plan(proc.ready or {}, proc.pid_namespace, self.plan)
        self.owner.probed(report)

    def count_failure(self, error: str) -> None:
        print(f"codecloze sandbox: {error}", file=sys.stderr)
        self.failures += 1
        if self.failures >= MAX_FAILURES:
            raise RuntimeError(f"job processes keep failing: {error}")

    def dispatch(self, pending: collections.deque) -> None:
        """Hands waiting jobs to ready processes, then asks for more to stay ahead."""
        while pending and self.ready:
            proc = self.ready.popleft()
            proc.state = "running"
            proc.start(*pending.popleft())
        starting = len(self.spawning) + sum(p.state == "starting" for p in self.procs.values())
        wanted = self.workers + len(pending) - len(self.ready) - starting
        for _ in range(min(wanted, len(self.free_slots))):
            self.spawn(self.free_slots.popleft())

    def counts(self) -> dict:
        return {
            "ready_pids": [p.pid for p in self.ready],
            "running": sum(p.state == "running" and not p.killed for p in self.procs.values()),
            "ending": sum(p.killed for p in self.procs.values()),  # killed or answered, not yet reaped
            "starting": len(self.spawning) + sum(p.state == "starting" for p in self.procs.values()),
            "answered_before_reap": self.answered_early,
        }

    def close(self) -> None:
        for proc in self.procs.values():
            proc.kill(None)
            policy.WorkDirs.remove(proc.work_dir)
        self.work_dirs.close()

    def close_cgroups(self) -> None:
        """After the zygote is gone (so are all job processes)."""
        if self.cgroups is not None:
            self.cgroups.close()
