"""Imports a snippet's code makes that the sandbox does not offer (CODECLOZE_SANDBOX_PACKAGES)."""

import ast

from ..i18n import _
from .errors import Problem
from .model import Snippet
from .places import block_start

SETTING = "CODECLOZE_SANDBOX_PACKAGES"


def imported(source: str) -> list[tuple[int, int, str]]:
    """(line, column, top-level module) of every absolute import in a block of code."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []  # reported by the parser
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, node.col_offset + 1, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.col_offset + 1, node.module.split(".")[0]))
    return out


def import_problems(snippet: Snippet, importable: frozenset[str], offered: tuple[str, ...]) -> list[Problem]:
    """One problem per import of a module that is neither standard library nor offered."""
    problems = []
    for part in ("setup", "code", "check"):
        start = block_start(snippet.source, part) or 0
        for line, column, module in imported(getattr(snippet, part)):
            if module not in importable:
                problems.append(
                    Problem(
                        start + line,
                        _(
                            "代码导入了 %(name)s，但沙箱里只有标准库和 %(setting)s 设置列出的包（现在是：%(offered)s）及其依赖；"
                            "请让管理员把 %(name)s 所在的包加入 %(setting)s。",
                            name=module,
                            setting=SETTING,
                            offered=", ".join(offered),
                        ),
                        column,
                    )
                )
    return problems
