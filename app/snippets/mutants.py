"""One-token mutants of a snippet's reference code: plausible slips a learner could make.

Each replaces one eligible token by a wrong one of the same kind (a nearby name, a swapped
operator, a changed number or string) and still compiles, so only the check can catch it.
Every eligible position gets a few; they depend on the code alone (the random draws are seeded
by its text), so an edit of the check alone is measured against exactly the same mutants.
"""

import ast
import hashlib
import random
from dataclasses import dataclass

from ..engine.tokens import Span, candidate_spans, eligible_spans
from .model import Snippet

PER_POSITION = 3  # mutants at most per eligible token
# The operators a learner might write instead. Brackets, commas, colons and dots are left out:
# swapping them gives syntax errors, which say nothing about the check.
OPERATORS = {
    "+": ("-", "*"),
    "-": ("+", "/"),
    "*": ("/", "+"),
    "/": ("*", "//"),
    "@": ("*",),
    "//": ("/", "%"),
    "%": ("//",),
    "**": ("*",),
    "<": (">", "<="),
    ">": ("<", ">="),
    "<=": (">=", "<"),
    ">=": ("<=", ">"),
    "==": ("!=",),
    "!=": ("==",),
    "&": ("|",),
    "|": ("&",),
    "^": ("|",),
    "<<": (">>",),
    ">>": ("<<",),
    "+=": ("-=", "*="),
    "-=": ("+=",),
    "*=": ("/=", "+="),
    "/=": ("*=",),
    "//=": ("/=",),
    "%=": ("//=",),
    "@=": ("*=",),
    "**=": ("*=",),
    "~": ("-",),
}
STRINGS = {"-inf": "inf", "inf": "-inf", "+inf": "-inf", "nan": "inf"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Mutant:
    span_index: int
    line: int  # 1-based, in the drill code
    column: int  # 1-based
    original: str
    replacement: str
    code: str


def mutants(snippet: Snippet, per_position: int = PER_POSITION) -> list[Mutant]:
    """Up to `per_position` compiling mutants at every eligible token, in code order."""
    code = snippet.code
    spans = candidate_spans(code)  # every kind, punctuation too: `.` tells attributes apart
    positions = {s.index for s in eligible_spans(code)}  # inert places and punctuation are none
    scopes = _scopes(_tree(code))
    lines = [code.count("\n", 0, s.start) + 1 for s in spans]
    variables = set().union(*(names for _, names in scopes))
    kinds = [_kind(s, spans, code, variables) for s in spans]
    pools: dict[str, list[tuple[int, str]]] = {"variable": [], "name": [], "attribute": [], "string": []}
    for span, line, kind in zip(spans, lines, kinds):
        if kind in pools and span.index in positions and (kind != "string" or _is_str(span.text)):
            pools[kind].append((line, span.text))
    seed = hashlib.sha256(code.encode()).hexdigest()
    out = []
    for span, line, kind in zip(spans, lines, kinds):
        if span.index not in positions:
            continue
        pool = _in_scope(pools["variable"], line, scopes) if kind == "variable" else pools.get(kind, [])
        rng = random.Random(f"strength:{seed}:{span.index}")  # one position's draw never moves another's
        column = span.start - code.rfind("\n", 0, span.start)
        made = 0
        for new in _replacements(span.text, kind, line, pool, rng):
            if made < per_position and _compiles(mutated := code[: span.start] + new + code[span.end :]):
                out.append(Mutant(span.index, line, column, span.text, new, mutated))
                made += 1
    return out


def _kind(span: Span, spans: tuple[Span, ...], code: str, bound: set[str]) -> str:
    """Names are swapped within their kind: a variable for a variable, `x.sum` for `x.max`;
    `x.m` or `torch` for `m` would only be an AttributeError or TypeError."""
    text = span.text
    if text.isidentifier():
        before = spans[span.index - 1] if span.index else None
        if before and before.text == "." and not code[before.end : span.start].strip():
            return "attribute"
        return "variable" if text in bound else "name"
    if text[0].isdigit() or (text[0] == "." and text[1:2].isdigit()):
        return "number"
    return "string" if text[-1] in "'\"" else "operator"


def _replacements(text: str, kind: str, line: int, pool, rng: random.Random) -> list[str]:
    """Plausible wrong tokens of the same kind, none for tokens not worth mutating."""
    if kind == "number":
        return _numbers(text)
    if kind == "operator":
        return list(OPERATORS.get(text, ()))
    if kind != "string":
        return _nearest(text, line, pool, rng)
    if not _is_str(text):
        return []  # f-strings and bytes
    value = ast.literal_eval(text)
    others = [(n, t) for n, t in pool if ast.literal_eval(t) != value]
    first = [repr(STRINGS[value])] if value in STRINGS else []
    return list(dict.fromkeys([*first, *_nearest(text, line, others, rng), repr(value + "x")]))


def _nearest(text: str, line: int, pool: list[tuple[int, str]], rng: random.Random) -> list[str]:
    """The other tokens of the pool, look-alikes first (`m_new` for `m`), then by distance in
    lines; ties in random order. The caller keeps the first few that compile."""
    distance: dict[str, int] = {}
    for other_line, other in pool:
        if other != text:
            distance[other] = min(abs(other_line - line), distance.get(other, 1 << 30))
    order = {t: rng.random() for t in sorted(distance)}
    return sorted(distance, key=lambda t: (not _looks_alike(t, text), distance[t], order[t]))


def _looks_alike(a: str, b: str) -> bool:
    a, b = a.strip("'\"").lower(), b.strip("'\"").lower()
    return bool(a and b) and (a.startswith(b) or b.startswith(a) or a.split("_")[0] == b.split("_")[0])


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _is_str(text: str) -> bool:
    return isinstance(_literal(text), str)


def _numbers(text: str) -> list[str]:
    """The literal changed but of the same type: n→n+1, n-1; 1.0→2.0, 0.5; 0.0→1.0, -1.0."""
    value = _literal(text)
    if isinstance(value, bool) or not isinstance(value, int | float | complex):
        return []
    if isinstance(value, int):
        return [str(value + 1), str(value - 1)]
    return [repr(value * 2), repr(value / 2)] if value else [repr(value + 1), repr(value - 1)]


def _tree(code: str) -> ast.Module:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])  # the parser reports it; nothing is inert


def _scopes(tree: ast.Module) -> list[tuple[range, set[str]]]:
    """The lines of the module and of each function, with the variables each binds itself."""
    functions = [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]
    return [(range(1, 1 << 30), _bound_in(tree))] + [
        (range(f.lineno, (f.end_lineno or f.lineno) + 1), _bound_in(f)) for f in functions
    ]


def _bound_in(scope: ast.AST) -> set[str]:
    """Names assigned in, or parameters of, a module or function; nested functions have their own."""
    names, todo = set(), list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        if not isinstance(node, _FUNCTIONS):
            todo.extend(ast.iter_child_nodes(node))
    return names


def _in_scope(pool: list[tuple[int, str]], line: int, scopes) -> list[tuple[int, str]]:
    """The variables a line can see: its function's, enclosing functions' and the module's.
    Another function's local would only be a NameError."""
    visible = set().union(*(names for lines, names in scopes if line in lines))
    return [(n, t) for n, t in pool if t in visible]


def _compiles(code: str) -> bool:
    # A syntax error is "caught" by any check at all, so it says nothing about this one.
    try:
        compile(code, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True
