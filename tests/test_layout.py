"""The layout keeps its promises: app's top level holds only the factory, the settings and the
neutral errors, every area package says what it owns, and the layers contract (pyproject.toml,
checked by import-linter in ./scripts/test) covers every package, so none escapes it."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.settings import PROJECT_DIR

pytestmark = pytest.mark.server

APP = PROJECT_DIR / "app"
PACKAGES = sorted(p.parent.name for p in APP.glob("*/__init__.py"))


def contract_layers() -> list[str]:
    config = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    return layers


def test_the_top_level_keeps_only_the_factory_the_settings_and_the_errors():
    assert sorted(p.name for p in APP.glob("*.py")) == ["__init__.py", "errors.py", "main.py", "settings.py"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_area_package_says_what_it_owns(package):
    doc = ast.get_docstring(ast.parse((APP / package / "__init__.py").read_text()))
    assert doc and len(doc) > 40, f"app/{package}/__init__.py needs a docstring saying what it owns"


def test_every_package_and_top_module_has_its_layer():
    named = {m.strip() for layer in contract_layers() for m in layer.split("|")}
    top = {f"app.{p.stem}" for p in APP.glob("*.py") if p.name != "__init__.py"}
    assert named == {f"app.{p}" for p in PACKAGES} | top


def test_the_contract_refuses_an_import_of_a_layer_above(tmp_path):
    """Written into a copy of app: memory importing classes (above it) breaks the contract."""
    copy = tmp_path / "app"
    subprocess.run(["cp", "-r", str(APP), str(copy)], check=True)
    (copy / "memory" / "probe.py").write_text("from app.classes import counts  # noqa: F401\n")
    (tmp_path / "pyproject.toml").write_text((PROJECT_DIR / "pyproject.toml").read_text())
    lint = [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"]  # installed beside python
    run = subprocess.run(lint, cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "app.memory is not allowed to import app.classes" in run.stdout
    (copy / "memory" / "probe.py").unlink()
    run = subprocess.run(lint, cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)})
    assert run.returncode == 0, run.stdout + run.stderr
