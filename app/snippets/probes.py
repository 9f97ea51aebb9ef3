"""Questions the reference run answers about a surviving mutant, so the teacher sees *why* the
check let it through: did the two expressions have the same value every time (two sizes equal in
the check's data), did a condition only ever go one way (a branch never taken), was a default ever
used. Only expressions without side effects are asked: names, attributes, literals, subscripts,
arithmetic and comparisons, and a few calls that only read (`len`, `.dim()`, `.size()`, …).
"""

import ast

from .mutants import Mutant

_READING_CALLS = {"len", "isinstance", "hasattr", "dim", "size", "numel", "item", "float", "int", "bool"}
_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
_SAFE = (
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Subscript,
    ast.Slice,
    ast.Tuple,
    ast.List,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
    ast.expr_context,
)


def probes_for(code: str, survivors: list[Mutant]) -> tuple[dict, ...]:
    """The probes of every survivor: `of` is the survivor's number in `survivors`, `id` the probe's own."""
    tree, offsets = _parsed(code)
    if tree is None:
        return ()
    out = []
    for i, m in enumerate(survivors):
        at = offsets[m.line - 1] + m.column - 1
        out += [{"of": i, **p} for p in _probes(code, tree, at, m)]
    return tuple({"id": n, **p} for n, p in enumerate(out))


def _parsed(code: str) -> tuple[ast.Module | None, tuple[int, ...]]:
    offsets = [0]
    for line in code.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    try:
        return ast.parse(code), tuple(offsets)
    except (SyntaxError, ValueError):
        return None, tuple(offsets)


def _probes(code: str, tree: ast.Module, at: int, m: Mutant) -> list[dict]:
    found = []
    values = _values(code, tree, at, m)
    if values:
        found.append({"line": values[0], "exprs": values[1:], "kind": "values"})
    test = _test(code, tree, at)
    if test:
        found.append({"line": test[0], "test": test[1], "kind": "branch"})
    default = _default(code, tree, at)
    if default:
        found.append({"call": default[:3], "param": default[3], "default": default[4], "kind": "default"})
    return found


def _offset(code: str, node: ast.AST) -> int:
    lines = code.splitlines(keepends=True)
    return sum(len(line) for line in lines[: node.lineno - 1]) + node.col_offset


def _end(code: str, node: ast.AST) -> int:
    lines = code.splitlines(keepends=True)
    return sum(len(line) for line in lines[: node.end_lineno - 1]) + node.end_col_offset


def _containing(code: str, tree: ast.AST, at: int, kinds) -> list[ast.AST]:
    """Nodes of `kinds` whose source holds offset `at`, outermost first."""
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, kinds) and hasattr(n, "lineno") and _offset(code, n) <= at < _end(code, n)
    ]


def _safe(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name not in _READING_CALLS or n.keywords:
                return False
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            return False
        elif not isinstance(n, (*_SAFE, ast.Call, ast.keyword)):
            return False
    return True


def _values(code: str, tree: ast.Module, at: int, m: Mutant) -> tuple[int, str, str] | None:
    """(line, original expression, mutated expression) where the two can be compared by value."""
    source = ast.get_source_segment
    for node in reversed(_containing(code, tree, at, (ast.Name, ast.Attribute, ast.BinOp))):
        if isinstance(node, ast.Name) and _offset(code, node) == at:
            if isinstance(node.ctx, ast.Load):
                return node.lineno, m.original, m.replacement
            return None  # a target: its value is what the line makes, not what it reads
        if isinstance(node, ast.Attribute) and _end(code, node) == at + len(m.original) and _safe(node.value):
            base = source(code, node.value)
            return node.lineno, f"({base}).{m.original}", f"({base}).{m.replacement}"
        if isinstance(node, ast.BinOp) and _safe(node.left) and _safe(node.right):
            left, right = source(code, node.left), source(code, node.right)
            between = code[_end(code, node.left) : _offset(code, node.right)]
            if between.strip() == m.original:
                return node.lineno, f"({left}) {m.original} ({right})", f"({left}) {m.replacement} ({right})"
    return None


def _test(code: str, tree: ast.Module, at: int) -> tuple[int, str] | None:
    """(line, condition) of the innermost `if`/`while`/conditional expression whose condition holds the token."""
    for node in reversed(_containing(code, tree, at, _TESTS)):
        test = node.test
        if _offset(code, test) <= at < _end(code, test) and _safe(test):
            return test.lineno, ast.get_source_segment(code, test)
    return None


def _default(code: str, tree: ast.Module, at: int) -> tuple[str, int, int, str, object] | None:
    """(function, first line, last line, parameter, default) when the token is in a default value."""
    for node in reversed(_containing(code, tree, at, (ast.FunctionDef, ast.AsyncFunctionDef))):
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in pairs:
            if _offset(code, default) <= at < _end(code, default):
                try:
                    value = ast.literal_eval(default)
                except (ValueError, SyntaxError):
                    return None
                if not isinstance(value, bool | int | float | str | None):
                    return None
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                return node.name, first, node.end_lineno or node.lineno, arg.arg, value
    return None
