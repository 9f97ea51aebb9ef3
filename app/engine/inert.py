"""Places in code that no behavioural check can judge, so they are no blanks by default.

Type annotations, docstrings (and other bare strings), and the message strings of `print`,
`logging`, `warnings.warn`, `raise` and `assert`: whatever is typed there, the code runs the same.
Each is a kind of its own that a learner can opt into, the way punctuation is.
"""

import ast

INERT_KINDS = ("annotations", "docstrings", "messages")
_LOGGERS = {"logging", "logger", "log", "LOGGER", "LOG"}
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


def inert_ranges(code: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, kind) character ranges of the inert places of `code`; none when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return ()
    starts = _line_starts(code)
    out = []
    for node, kind in _inert_nodes(tree):
        start, end = (
            _offset(code, starts, node.lineno, node.col_offset),
            _offset(code, starts, node.end_lineno, node.end_col_offset),
        )
        if start is not None and end is not None:
            out.append((start, end, kind))
    return tuple(out)


def inert_kind(ranges: tuple[tuple[int, int, str], ...], start: int, end: int, is_string: bool) -> str | None:
    """The inert kind of a token at [start, end), if any: message ranges hold only their strings."""
    for first, last, kind in ranges:
        if first <= start and end <= last and (kind != "messages" or is_string):
            return kind
    return None


def _inert_nodes(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation, "annotations"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            yield node.returns, "annotations"
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation, "annotations"
        elif (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant | ast.JoinedStr) and _is_text(node.value)
        ):
            yield node.value, "docstrings"
        else:
            for message in _messages(node):
                yield from ((s, "messages") for s in ast.walk(message) if _is_text(s))


def _messages(node: ast.AST) -> list[ast.AST]:
    """The argument expressions of a node whose strings only say something to a reader."""
    if isinstance(node, ast.Raise) and node.exc is not None:
        exc = node.exc
        return [*exc.args, *(k.value for k in exc.keywords)] if isinstance(exc, ast.Call) else []
    if isinstance(node, ast.Assert):
        return [node.msg] if node.msg is not None else []
    if isinstance(node, ast.Call) and _speaks(node.func):
        return [*node.args, *(k.value for k in node.keywords)]
    return []


def _speaks(func: ast.AST) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "print"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner, method = func.value.id, func.attr
        return (owner == "warnings" and method == "warn") or (owner in _LOGGERS and method in _LOG_METHODS)
    return False


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _line_starts(code: str) -> list[int]:
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _offset(code: str, starts: list[int], line: int | None, column: int | None) -> int | None:
    """A character offset from ast's (line, UTF-8 byte column)."""
    if line is None or column is None or line > len(starts) - 1 and column:
        return None
    start = starts[min(line, len(starts)) - 1]
    row = code[start : starts[line] if line < len(starts) else len(code)]
    return start + len(row.encode()[:column].decode("utf-8", "ignore"))
