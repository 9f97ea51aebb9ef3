"""A job sees only what it needs of the filesystem, wherever the app is installed."""

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from app.main import _private_paths, create_app
from app.sandbox import Sandbox
from app.sandbox.runtime import needed_paths
from app.settings import PROJECT_DIR, Settings
from tests.sandbox.support import TEST_LIMITS, job, world_writable_dir

pytestmark = pytest.mark.server

LOOK_AROUND = """
import os
top = sorted(os.listdir('/'))
etc = os.listdir('/etc')
seen = [p for p in PATHS if os.path.exists(p)]
"""


def test_the_root_holds_only_the_runtime(runner):
    canary = world_writable_dir("codecloze-canary-")
    (canary / "readable.txt").write_text("host file")
    os.chmod(canary / "readable.txt", 0o644)
    paths = [
        str(canary / "readable.txt"),
        "/etc/passwd",
        "/etc/hostname",
        "/home",
        "/var",
        "/usr/bin",
        str(PROJECT_DIR / "app"),
        str(PROJECT_DIR / "pyproject.toml"),
        "/sys",
        "/run",
        "/dev/shm",
    ]
    needed = needed_paths()  # a runtime installed under /home or /var makes those visible, rightly
    paths = [p for p in paths if not any(Path(p) in q.parents for q in needed)]
    try:
        verdict = runner.run(
            LOOK_AROUND,
            setup=f"PATHS = {paths!r}",
            check="assert etc == ['ld.so.cache'], etc\nassert seen == [], seen\nprint(top)",
        )
    finally:
        shutil.rmtree(canary)
    assert verdict.status == "passed", verdict
    top = set(eval(verdict.stdout))
    # the runtime's own top-level directories (the venv may live under /work, /check, /home...)
    runtime_tops = {p.parts[1] for p in needed_paths() if len(p.parts) > 1}
    assert top <= {"dev", "etc", "proc", "tmp", "root", "lib", "lib32", "lib64", "libx32"} | runtime_tops
    assert runner.sandbox.protections()["minimal_root"]


def test_the_database_is_invisible_wherever_it_points(tmp_path):
    db_dir = world_writable_dir("codecloze-db-")
    try:
        settings = Settings(data_dir=tmp_path / "data", execution=False, database_url=f"sqlite:///{db_dir}/other.db")
        create_app(settings)
        assert oct(os.stat(db_dir / "other.db").st_mode & 0o777) == "0o600"
        assert oct(os.stat(tmp_path / "data").st_mode & 0o777) == "0o700"
        assert db_dir.resolve() in _private_paths(settings)
        os.chmod(db_dir / "other.db", 0o644)  # even readable by anyone, a job cannot reach it

        async def look():
            sandbox = Sandbox(TEST_LIMITS, workers=1, data_dirs=_private_paths(settings))
            await sandbox.start()
            try:
                return await sandbox.run(job(f"import os\nprint(os.path.exists({str(db_dir / 'other.db')!r}))"))
            finally:
                await sandbox.close()

        verdict = asyncio.run(look())
    finally:
        shutil.rmtree(db_dir)
    assert (verdict.status, verdict.stdout) == ("passed", "False\n")


@pytest.fixture(scope="module")
def venv_under_tmp():
    """The project's own venv, hard-linked under /tmp (same files, paths under /tmp)."""
    where = Path(tempfile.mkdtemp(prefix="codecloze-venv-", dir="/tmp"))
    subprocess.run(["cp", "-al", sys.prefix, str(where / "venv")], check=True)
    yield where / "venv"
    shutil.rmtree(where)


LAZY_TORCH = """
import os, sys, torch
assert sys.prefix.startswith('/tmp/') and torch.__file__.startswith('/tmp/'), (sys.prefix, torch.__file__)
import torch.utils.cpp_extension  # lazily imported: needs the venv's files from inside the job
torch.save(torch.arange(3), '/tmp/t.pt')
assert torch.load('/tmp/t.pt').tolist() == [0, 1, 2]
try:
    open(os.path.join(sys.prefix, 'pwned'), 'w')
except OSError as e:
    assert e.errno == 30
else:
    raise AssertionError('the venv is writable')
print(sorted(os.listdir('/tmp')))
"""


def test_a_runtime_installed_under_tmp_works_in_jobs(venv_under_tmp):
    async def run():
        sandbox = Sandbox(TEST_LIMITS, workers=1, python=str(venv_under_tmp / "bin" / "python"))
        await sandbox.start()
        try:
            return sandbox.protections(), await sandbox.run(job(LAZY_TORCH))
        finally:
            await sandbox.close()

    protections, verdict = asyncio.run(run())
    assert verdict.status == "passed", verdict
    assert eval(verdict.stdout.splitlines()[-1]) == sorted(["t.pt", venv_under_tmp.parent.name])
    assert protections["private_tmp"] and protections["minimal_root"] and protections["readonly_fs"]


IMPORTS = """
import importlib
def can_import(name):
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False
found = {name: can_import(name) for name in NAMES}
"""


def test_jobs_import_only_the_offered_distributions_and_the_stdlib(runner):
    """torch, numpy and einops (the default), torch's dependencies and the standard library
    import; what else is installed beside them (the web app's own stack) does not."""
    names = [
        "einops",
        "numpy",
        "torch",
        "sympy",
        "json",
        "sqlite3",
        "fastapi",
        "sqlalchemy",
        "psycopg",
        "pydantic",
        "yaml",
        "pip",
        "app.settings",
    ]
    verdict = runner.run(IMPORTS, setup=f"NAMES = {names!r}", check="print(found)")
    assert verdict.status == "passed", verdict
    found = eval(verdict.stdout)
    assert [n for n in names if found[n]] == ["einops", "numpy", "torch", "sympy", "json", "sqlite3"]
    einops_code = "import einops, torch\nx = einops.rearrange(torch.ones(2, 3), 'a b -> b a')"
    assert runner.run(einops_code, check="assert x.shape == (3, 2)").status == "passed"
