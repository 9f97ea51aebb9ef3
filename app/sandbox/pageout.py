"""Give back the library pages that only the zygote's start-up used.

Importing torch runs initialisers across its shared libraries: about 80 MiB of their code and
read-only data is touched once, at start-up, and then stays mapped in the zygote alone, counted in
the host's memory for as long as the server runs. Once the zygote is warm, each file-backed mapping
is paged out (MADV_PAGEOUT, Linux 5.4+): clean pages go back to the kernel, and a job that needs one
faults it in again from the page cache (bench/RESULTS.md: the course's jobs and the memory of web
server + fork server, with and without it). Anonymous memory, which every job shares, is untouched.
"""

from . import linux


def _file_mappings() -> list[tuple[int, int]]:
    return [(start, end) for start, end, perms, path in linux.mappings() if path.startswith("/") and "w" not in perms]


def page_out() -> int:
    """Page out every read-only file-backed mapping; returns how many the kernel took."""
    return sum(linux.madvise(start, end - start, linux.MADV_PAGEOUT) for start, end in _file_mappings())
