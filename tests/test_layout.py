"""The layout keeps its promises: app's top level holds only the factory and the settings, every
area package says what it owns, and lower layers never import the layers above them."""

import ast
from pathlib import Path

import pytest

from app.settings import PROJECT_DIR

APP = PROJECT_DIR / "app"
LOWER = ("engine", "snippets", "sandbox", "db")
UPPER = ("app.learn", "app.teach", "app.web", "app.routes")


def imported(path: Path, text: str | None = None) -> set[str]:
    """Every module `path` imports (or `text`, as if it were at `path`), relative imports resolved."""
    package = ".".join(path.relative_to(PROJECT_DIR).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return found


def test_the_top_level_keeps_only_the_factory_and_the_settings():
    assert sorted(p.name for p in APP.glob("*.py")) == ["__init__.py", "main.py", "settings.py"]


@pytest.mark.parametrize("package", sorted(p.parent.name for p in APP.glob("*/__init__.py")))
def test_every_area_package_says_what_it_owns(package):
    doc = ast.get_docstring(ast.parse((APP / package / "__init__.py").read_text()))
    assert doc and len(doc) > 40, f"app/{package}/__init__.py needs a docstring saying what it owns"


@pytest.mark.parametrize("layer", LOWER)
def test_lower_layers_never_import_upper_ones(layer):
    offending = {
        str(path.relative_to(PROJECT_DIR)): sorted(m for m in imported(path) if m.startswith(UPPER))
        for path in (APP / layer).rglob("*.py")
    }
    assert {path: mods for path, mods in offending.items() if mods} == {}


def test_the_import_reader_resolves_relative_and_absolute_imports():
    """The layer check would pass with a reader that sees nothing: it must see both forms."""
    at = APP / "engine" / "example.py"
    assert "app.web.errors" in imported(at, "from ..web.errors import UserError\n")
    assert "app.routes.trainer" in imported(at, "from app.routes import trainer\n")
    assert "app.engine.tokens" in imported(at, "def f():\n    from .tokens import KINDS\n")
    assert "app.memory.update.apply_attempts" in imported(APP / "db" / "store.py")
