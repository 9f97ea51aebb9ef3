"""What the zygote loads once so that every job finds it ready: torch, single-threaded, warm."""

import os
import sys
from pathlib import Path

from . import harness, mounts, packages


def import_runtime() -> dict:
    os.environ["OMP_NUM_THREADS"] = "1"  # forked children deadlock in libgomp otherwise
    import math  # noqa: F401 - preloaded for the jobs

    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    return {"torch": torch.__version__}


_WARM_UP = """
x = torch.randn(4, 8)
y = (torch.softmax(x, dim=-1) @ x.T).exp().sum(dim=0, keepdim=True).max()
z = torch.zeros(2, 2); z[0] = torch.tensor([1.0, 2.0]); z[:, 1] += 1
assert torch.allclose(torch.ones(3), torch.ones(3)) and x.shape[-1] == 8
text = repr(x) + str(y) + repr(z.tolist()) + f"{y.item():.3f}"
w = torch.randn(4, 8, requires_grad=True)
(torch.softmax(w @ w.T, dim=-1) @ w).backward(torch.ones(4, 8))  # non-scalar: imports sympy
with torch.no_grad():
    w -= 0.1 * w.grad
"""
# A backward from a non-scalar with a given gradient (`O.backward(dO)`, the flash-backward
# exercise) checks that gradient's shape through torch.fx's symbolic shapes, which import sympy:
# 34 MiB of the zygote's memory that every job shares, against 0.25 s in each job that needs it
# (bench/RESULTS.md, "The course's jobs"). The job's time is what a learner waits for; kept.


def warm_up() -> None:
    """First calls of torch ops initialise lazily, and reseeding imports numpy.random: do that
    once here, not in every job (where the interpreter's files may not even be readable)."""
    import torch

    exec(compile(_WARM_UP, "<warm-up>", "exec"), {"torch": torch})
    harness.reseed()


PROJECT = Path(__file__).resolve().parents[2]


def needed_paths() -> list[Path]:
    """Directories a job must be able to read for lazy imports and shared libraries: the
    prefixes, torch's site-packages, the import path (but not the app's own source tree,
    which jobs never import) and the directories of every library mapped now."""
    import torch

    prefixes = [Path(p).resolve() for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)]
    inside_prefix = lambda p: any(p == q or q in p.parents for q in prefixes)
    path = [Path(p).resolve() for p in sys.path if p]
    path = [p for p in path if inside_prefix(p) or not (p == PROJECT or p in PROJECT.parents)]
    return prefixes + [Path(torch.__file__).resolve().parent.parent] + path + mounts.mapped_dirs()


def offered_paths(names: list[str]) -> list[Path]:
    """What of site-packages the jobs' root holds: the offered distributions' own paths."""
    return [p for o in packages.offered(tuple(names)) for p in o.paths]
