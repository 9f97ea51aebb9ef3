import os
import shutil
import tempfile
from pathlib import Path

# Importing app.main builds the default app; keep its data out of the working tree.
os.environ.setdefault("CODECLOZE_DATA_DIR", tempfile.mkdtemp(prefix="codecloze-import-"))

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import PROJECT_DIR, Settings

SNIPPETS = PROJECT_DIR / "snippets"
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", execution=False, use_cdn=False)


@pytest.fixture
def client(settings: Settings):
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("browser tests need Debian's chromium; .ci/run installs it")
        pytest.skip("Debian chromium not installed (apt-get install chromium fonts-noto-cjk)")
    return CHROMIUM


@pytest.fixture
def snippets_dir(tmp_path: Path) -> Path:
    """A private copy of the bundled snippets that a test may change."""
    target = tmp_path / "snippets"
    shutil.copytree(SNIPPETS, target)
    return target
