"""Back the zygote's anonymous memory with huge pages so that fork and exit stay cheap.

With torch imported the zygote holds ~150 MiB of anonymous memory; fork copies one page-table
entry per 4 KiB page of it and every job's exit tears them down again. Measured on a 2-core VM:
fork 10 ms -> 1.5 ms and exit 14 ms -> 3.5 ms once that memory sits in 2 MiB pages. A job that
writes to a shared huge page gets its own 4 KiB copy, as before.
"""

from . import linux

_HUGE = 2 << 20


def _anonymous_writable_regions() -> list[tuple[int, int]]:
    return [
        (start, end)
        for start, end, perms, path in linux.mappings()
        if perms.startswith("rw") and path in ("", "[heap]") and end - start >= _HUGE
    ]


def collapse() -> int:
    """Ask for huge pages on every large anonymous region; returns how many took them now."""
    collapsed = 0
    for start, end in _anonymous_writable_regions():
        linux.madvise(start, end - start, linux.MADV_HUGEPAGE)
        collapsed += linux.madvise(start, end - start, linux.MADV_COLLAPSE)  # kernel 6.1+
    return collapsed
