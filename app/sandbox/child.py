"""A job process from fork to exit: confine, say ready, take one job, report, exit.

It never returns into the zygote's code and never runs a second job.
"""

import fcntl
import io
import os
import signal
import sys
import traceback

from . import confine, framing, harness, probe

_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1"}


def _wire_stdio(out_fd: int, err_fd: int) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    for src, dst in ((null, 0), (out_fd, 1), (err_fd, 2)):
        if src != dst:
            os.dup2(src, dst)
            os.close(src)
    new = lambda fd: io.TextIOWrapper(
        io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )
    sys.stdout, sys.stderr = new(1), new(2)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")


def _enter_work_dir(path: str) -> None:
    os.chdir(path)
    os.environ.clear()
    os.environ.update(_ENV, HOME=path, TMPDIR=path)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the learner closed or broke it
            pass


def job_main(fds: dict, spawn: dict, seccomp_filter) -> None:
    """fds: job, result, out, err (this side's ends). Ends the process."""
    code, me = 70, os.getpid()
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        fds = {name: fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for name, fd in fds.items()}  # clear of 0-2
        confine.close_other_fds(set(fds.values()))
        done = confine.confine(spawn["plan"], spawn["limits"], seccomp_filter, spawn["strict"])
        _wire_stdio(fds["out"], fds["err"])
        _enter_work_dir("/tmp" if done.get("private_view") else spawn["work_dir"] or "/")
        harness.reseed()  # before "ready": this process runs one job only
        framing.write_frame(fds["result"], {"ready": done})
        job = framing.read_frame_blocking(fds["job"])
        if job is None:
            os._exit(0)
        if "probe" in job:
            result = {"probe": probe.verify(job["probe"], done)}
        else:
            result = harness.run_parts(job, spawn["limits"])
        if os.getpid() != me:  # a process the learner forked never reports
            os._exit(0)
        _flush()
        framing.write_frame(fds["result"], {"result": result})
        code = 0
    except BaseException as exc:  # noqa: B902 - report set-up failures, never raise into the zygote
        if os.getpid() == me:
            try:
                where = traceback.extract_tb(exc.__traceback__)[-1]
                error = f"{type(exc).__name__}: {exc} ({os.path.basename(where.filename)}:{where.lineno})"
                framing.write_frame(fds["result"], {"setup_error": error})
            except BaseException:  # noqa: B902
                pass
    finally:
        os._exit(code)
