"""One fork server for the sandbox tests, with short limits, driven from its own event loop."""

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from app.sandbox import Sandbox
from tests.sandbox.support import SECRET, TEST_LIMITS, WORKERS, Runner, world_writable_dir


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = world_writable_dir("codecloze-data-")
    (path / "secret.txt").write_text(SECRET)
    os.chmod(path, 0o755)
    os.chmod(path / "secret.txt", 0o644)  # readable by anyone: only the sandbox's view hides it
    yield path
    shutil.rmtree(path)


@pytest.fixture(scope="session")
def event_loop_for_sandbox():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="session")
def runner(event_loop_for_sandbox, data_dir) -> Runner:
    sandbox = Sandbox(TEST_LIMITS, workers=WORKERS, queue=8, data_dirs=(data_dir,))
    run = Runner(event_loop_for_sandbox, sandbox, data_dir)
    run(sandbox.start())
    yield run
    run(sandbox.close())
