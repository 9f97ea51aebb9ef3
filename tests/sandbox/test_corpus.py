"""Every hostile case gets a clear verdict and leaves nothing behind; the server carries on."""

import glob
import os
import shutil
import socket
import uuid
from pathlib import Path

import pytest

from tests.sandbox.corpus import context_setup, load_corpus
from tests.sandbox.support import world_writable_dir

CORPUS = load_corpus()
PWNED = Path("/var/tmp/codecloze-pwned")  # the fixed path some cases try to create

pytestmark = pytest.mark.server
SHARED_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


class World:
    """What the cases aim at on the host, and how to tell whether they hit it."""

    def __init__(self, data_dir: Path):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.canary = world_writable_dir("codecloze-canary-")
        os.chmod(self.canary, 0o777)
        (self.canary / "keep.txt").write_text("keep")
        os.chmod(self.canary / "keep.txt", 0o666)
        tag = uuid.uuid4().hex[:8]
        self.database_dir = world_writable_dir("codecloze-db-")  # where DATABASE_URL may point
        (self.database_dir / "codecloze.db").touch(0o644)
        self.names = {
            "DATA_FILE": str(data_dir / "secret.txt"),
            "DATABASE_FILE": str(self.database_dir / "codecloze.db"),
            "WEB_PORT": self.listener.getsockname()[1],
            "OUTSIDE_FILE": f"/var/tmp/codecloze-escape-{tag}",
            "HOST_TMP_FILE": f"/tmp/codecloze-escape-{tag}",
            "CANARY_DIR": str(self.canary),
        }

    def connections(self) -> int:
        count = 0
        while True:
            try:
                self.listener.accept()[0].close()
                count += 1
            except BlockingIOError:
                return count

    def close(self) -> None:
        self.listener.close()
        shutil.rmtree(self.canary, ignore_errors=True)
        shutil.rmtree(self.database_dir, ignore_errors=True)


@pytest.fixture
def world(data_dir):
    PWNED.unlink(missing_ok=True)
    w = World(data_dir)
    yield w
    w.close()


def _sandbox_owned_files(uids: range) -> list[str]:
    """Entries a job uid owns in the host's shared dirs or in an on-disk job temp root."""
    found = []
    for directory in SHARED_DIRS + tuple(glob.glob("/tmp/codecloze-jobs-*")):
        for entry in _entries(directory):
            if _owner(entry) in uids:
                found.append(entry.path)
    return found


# Other test workers share these dirs and create and remove their own entries while one is
# scanned: an entry gone between listing and stat is nobody's leftover.
def _entries(directory: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(directory))
    except FileNotFoundError:
        return []


def _owner(entry: os.DirEntry) -> int | None:
    try:
        return entry.stat(follow_symlinks=False).st_uid
    except FileNotFoundError:
        return None


def test_corpus_is_not_empty():
    assert len(CORPUS) >= 17


@pytest.mark.parametrize("name,source,expected", CORPUS, ids=[case[0] for case in CORPUS])
def test_case_is_contained(runner, world, name, source, expected):
    server_before = runner.settled_status()["server_pid"]

    verdict = runner.run(source, setup=context_setup(**world.names))

    assert verdict.status in expected.statuses, verdict
    assert verdict.message or verdict.status == "passed"
    for text in expected.stdout_lacks:
        assert text not in verdict.stdout
    if expected.line is not None:
        assert (verdict.part, verdict.line) == ("code", expected.line)
    # The server answers the next job normally, without having been restarted.
    assert runner.run("x = 2", check="assert x == 2").status == "passed"
    assert runner.settled_status()["server_pid"] == server_before
    # Nothing the job started is still alive; nothing it wrote reached the host.
    assert runner.leftover_processes() == []
    assert not Path(world.names["OUTSIDE_FILE"]).exists()
    assert not Path(world.names["HOST_TMP_FILE"]).exists()
    assert not PWNED.exists()
    assert (world.canary / "keep.txt").read_text() == "keep"
    assert world.connections() == 0
    assert _sandbox_owned_files(runner.job_uids(runner.settled_status())) == []
