"""Reading and writing cgroupfs, and removing the trees this server (or a dead one) made.

Shared by v1 and v2: the files differ, the protocol does not (one value per write, "key value"
lines to read, rmdir for removal, and in v2 `cgroup.kill` for whatever is still inside).
"""

import os
import time

PREFIX = "codecloze-"  # the trees of one server: codecloze-<server pid>


def write(path: str, value) -> None:
    """One write(2) of the whole value, as cgroupfs wants it (it parses each write alone)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def stat(path: str, key: str) -> int:
    """The value of `key` in a file of "key value" lines (cpu.stat, memory.events, ...); 0 if absent."""
    for line in read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def populated(directory: str) -> bool:
    """Whether any process is in this cgroup or below: v2's cgroup.events, else v1's procs."""
    if os.path.exists(f"{directory}/cgroup.events"):
        return stat(f"{directory}/cgroup.events", "populated") > 0
    return bool(read(f"{directory}/cgroup.procs").strip())


def kill(directory: str) -> bool:
    """SIGKILLs every process in the tree at once where the kernel can (v2's cgroup.kill)."""
    if not os.path.exists(f"{directory}/cgroup.kill"):
        return False
    write(f"{directory}/cgroup.kill", 1)
    return True


def _remove(path: str) -> None:
    try:
        kill(path)
    except OSError:
        pass
    for entry in os.scandir(path):
        if entry.is_dir():
            try:
                os.rmdir(entry.path)
            except OSError:
                pass  # still holds a process (EBUSY) until it has exited
    try:
        os.rmdir(path)
    except OSError:
        pass


def remove_server_trees(bases: list[str], seconds: float = 2.0) -> None:
    """Removes these trees of a server that is gone (or closing): anything still inside is
    killed where v2 can; elsewhere its jobs die with it (they are killed when their parent
    dies). A cgroup empties within moments of its last process's exit, so this retries until
    then rather than leave directories inside the cgroup the app runs in."""
    bases = sorted(set(bases))  # v2 names one directory for every controller
    deadline = time.monotonic() + seconds
    while True:
        for base in bases:
            if os.path.isdir(base):
                _remove(base)
        if not any(os.path.isdir(b) for b in bases) or time.monotonic() > deadline:
            return
        time.sleep(0.02)


def remove_stale(directory: str) -> None:
    """Trees of servers that were killed (no process has their pid any more)."""
    stale = [
        entry.path
        for entry in os.scandir(directory)
        if entry.is_dir()
        and entry.name.startswith(PREFIX)
        and entry.name[len(PREFIX) :].isdigit()
        and not os.path.exists(f"/proc/{entry.name[len(PREFIX) :]}")
    ]
    if stale:
        remove_server_trees(stale, seconds=1.0)
