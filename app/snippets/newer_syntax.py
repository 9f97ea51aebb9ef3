"""Syntax this server's Python does not know but a newer one does: say so, not just "invalid".

Teachers bring code from projects that already run 3.12; the parser's own words ("invalid
syntax") do not tell them that the file is fine and the server is older.
"""

import re
import sys

# (what the line looks like, how the message shows it, the release that accepts it)
FORMS = (
    (re.compile(r"^\s*(async\s+)?def\s+\w+\s*\["), "def f[T]()", "3.12"),
    (re.compile(r"^\s*class\s+\w+\s*\["), "class C[T]", "3.12"),
    (re.compile(r"^\s*type\s+\w+\s*(\[[^\]]*\])?\s*="), "type X = …", "3.12"),
    (re.compile(r"""\bf(['"]).*\{[^}]*\1"""), 'f"{x["k"]}"', "3.12"),
)


def running() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def newer_form(line: str) -> tuple[str, str] | None:
    """(the construct, the Python version that accepts it) when the line uses newer syntax."""
    for pattern, shown, release in FORMS:
        if pattern.search(line) and release > running():
            return shown, release
    return None
