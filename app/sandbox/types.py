"""What the web app hands the sandbox and what it gets back."""

from dataclasses import asdict, dataclass, fields

# Verdict.status values:
#   passed   every part ran to the end
#   failed   an AssertionError raised in the check part (message = the assertion's message)
#   error    any other exception, a SyntaxError, or an exit before the check finished
#   timeout  CPU-time or wall-clock limit reached
#   memory   memory cap reached (MemoryError, torch's allocator failing, or killed for memory)
#   crashed  the process died from a signal or exited without reporting (e.g. a segfault)
#   output   stdout/stderr went far beyond what is kept (the job is stopped)
STATUSES = ("passed", "failed", "error", "timeout", "memory", "crashed", "output")


@dataclass(frozen=True)
class Limits:
    cpu_seconds: float = 5
    wall_seconds: float = 10
    memory_bytes: int = 1 << 30  # address space above the forked image, per process
    max_processes: int = 16
    max_open_files: int = 64
    max_file_bytes: int = 1 << 20
    output_bytes: int = 64 * 1024  # kept per stream; 16x this stops the job
    work_dir_bytes: int = 16 << 20  # size of the private /tmp (a tmpfs) where available
    work_dir_files: int = 256  # inodes of that tmpfs

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Job:
    parts: tuple[tuple[str, str], ...]
    check_part: str = "check"

    def as_dict(self) -> dict:
        return {"parts": [list(p) for p in self.parts], "check_part": self.check_part}


@dataclass(frozen=True)
class Verdict:
    status: str
    message: str
    part: str | None = None
    line: int | None = None
    column: int | None = None  # 1-based, where Python knows the failing expression's place
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class SandboxBusy(Exception):
    """The job could not be run in time (its line is full, or its wait would be too long): retry
    after `retry_after` seconds."""

    def __init__(self, message: str = "", retry_after: float = 2.0):
        super().__init__(message)
        self.retry_after = retry_after


class SandboxUnavailable(Exception):
    """The fork server could not be started or restarted."""
