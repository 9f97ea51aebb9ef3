"""One-token mutants of a snippet's reference code: plausible slips a learner could make.

Each replaces one eligible token by a wrong one of the same kind (a nearby name, a swapped
operator, a changed number or string) and still compiles, so only the check can catch it.
"""
import ast
import random
import re
from dataclasses import dataclass

from ..engine.tokens import Span, candidate_spans
from .model import Snippet

# The operator a learner might write instead. Brackets, commas, colons and dots are left out:
# swapping them gives syntax errors, which say nothing about the check.
OPERATORS = {"+": "-", "-": "+", "*": "/", "/": "*", "@": "*", "//": "/", "%": "//", "**": "*",
             "<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "!=", "!=": "==", "&": "|", "|": "&",
             "^": "|", "<<": ">>", ">>": "<<", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=",
             "//=": "/=", "%=": "//=", "@=": "*=", "**=": "*="}
STRINGS = {"-inf": "inf", "inf": "-inf", "+inf": "-inf", "nan": "inf"}
NEAREST = 3  # a wrong name is drawn from the few names used closest to the right one
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DECLARED = re.compile(r"(?:async\s+)?(?:def|class)\s+")


@dataclass(frozen=True)
class Mutant:
    span_index: int
    line: int  # 1-based, in the drill code
    column: int  # 1-based
    original: str
    replacement: str
    code: str


def mutants(snippet: Snippet, max_mutants: int = 40) -> list[Mutant]:
    """A deterministic sample of compiling mutants, spread over the lines, blanks first."""
    code = snippet.code
    spans = candidate_spans(code)  # every kind, punctuation too: `.` tells attributes apart
    tree = _tree(code)
    inert, scopes = _inert_offsets(tree, code), _scopes(tree)
    lines = [code.count("\n", 0, s.start) + 1 for s in spans]
    variables = set().union(*(names for _, names in scopes))
    kinds = [_kind(s, spans, code, variables) for s in spans]
    pools: dict[str, list[tuple[int, str]]] = {"variable": [], "name": [], "attribute": [], "string": []}
    for span, line, kind in zip(spans, lines, kinds):
        if kind in pools and (kind != "string" or (span.start not in inert and _is_str(span.text))):
            pools[kind].append((line, span.text))
    rng = random.Random(f"strength:{snippet.version}")
    viable = []
    for span, line, kind in zip(spans, lines, kinds):
        pool = _in_scope(pools["variable"], line, scopes) if kind == "variable" else pools.get(kind, [])
        new = None if span.start in inert else _replacement(span.text, kind, line, pool, rng)
        if new is not None and _compiles(mutated := code[:span.start] + new + code[span.end:]):
            column = span.start - code.rfind("\n", 0, span.start)
            viable.append(Mutant(span.index, line, column, span.text, new, mutated))
    blanked = {s.index for s in spans if any(b.start <= s.start and s.end <= b.end for b in snippet.blanks)}
    chosen = _spread([m for m in viable if m.span_index in blanked], max_mutants, rng)
    chosen += _spread([m for m in viable if m.span_index not in blanked], max_mutants - len(chosen), rng)
    return sorted(chosen, key=lambda m: m.span_index)


def _kind(span: Span, spans: tuple[Span, ...], code: str, bound: set[str]) -> str:
    """Names are swapped within their kind: a variable for a variable, `x.sum` for `x.max`;
    `x.m` or `torch` for `m` would only be an AttributeError or TypeError."""
    text = span.text
    if text.isidentifier():
        before = spans[span.index - 1] if span.index else None
        if before and before.text == "." and not code[before.end:span.start].strip():
            return "attribute"
        return "variable" if text in bound else "name"
    if text[0].isdigit() or (text[0] == "." and text[1:2].isdigit()):
        return "number"
    return "string" if text[-1] in "'\"" else "operator"


def _replacement(text: str, kind: str, line: int, pool, rng: random.Random) -> str | None:
    """A plausible wrong token of the same kind, or None for tokens not worth mutating."""
    if kind == "number":
        return _number(text)
    if kind == "operator":
        return OPERATORS.get(text)
    if kind != "string":
        return _nearest(text, line, pool, rng)
    if not _is_str(text):
        return None  # f-strings and bytes
    value = ast.literal_eval(text)
    others = [(n, t) for n, t in pool if ast.literal_eval(t) != value]
    return repr(STRINGS[value]) if value in STRINGS else _nearest(text, line, others, rng) or repr(value + "x")


def _nearest(text: str, line: int, pool: list[tuple[int, str]], rng: random.Random) -> str | None:
    """One of the few other tokens used closest by, look-alikes first (`m_new` for `m`)."""
    distance: dict[str, int] = {}
    for other_line, other in pool:
        if other != text:
            distance[other] = min(abs(other_line - line), distance.get(other, 1 << 30))
    similar = {t: d for t, d in distance.items() if _looks_alike(t, text)}
    distance = similar or distance
    if not distance:
        return None
    cutoff = sorted(distance.values())[:NEAREST][-1]  # ties at the cutoff all stay in the draw
    return rng.choice(sorted(t for t, d in distance.items() if d <= cutoff))


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


def _number(text: str) -> str | None:
    """The literal changed but of the same type: 0→1, n→n+1, 1.0→2.0, 0.0→1.0."""
    value = _literal(text)
    if isinstance(value, int):
        return str(value + 1)
    if isinstance(value, float | complex):
        return repr(value * 2 if value else value + 1)
    return None


def _tree(code: str) -> ast.Module:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])  # the parser reports it; nothing is inert


def _scopes(tree: ast.Module) -> list[tuple[range, set[str]]]:
    """The lines of the module and of each function, with the variables each binds itself."""
    functions = [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]
    return [(range(1, 1 << 30), _bound_in(tree))] + [
        (range(f.lineno, (f.end_lineno or f.lineno) + 1), _bound_in(f)) for f in functions]


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


def _inert_offsets(tree: ast.Module, code: str) -> set[int]:
    """Starts of tokens whose mutants say nothing: docstrings and other bare strings, print/assert/
    raise messages, names a def, class or parameter declares, keyword-argument names (a wrong one
    is a TypeError under any check), and the sign of a literal (the number's own mutant covers it;
    `dim=+1` is `dim=-1` on 2-D input)."""
    rows = code.split("\n")
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row) + 1)

    def offset(node) -> int:  # ast columns count UTF-8 bytes
        if node.lineno > len(rows):
            return -1  # a line break Python counts and str.split does not (a lone \r)
        row = rows[node.lineno - 1].encode()[:node.col_offset]
        return starts[node.lineno - 1] + len(row.decode("utf-8", "ignore"))

    out: set[int] = set()
    for node in ast.walk(tree):
        quiet = []
        if isinstance(node, ast.arg | ast.keyword) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)):
            out.add(offset(node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            at = offset(node)
            declared = _DECLARED.match(code, at)
            out.add(declared.end() if declared else at)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            quiet = [node.value]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            quiet = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Assert | ast.Raise):
            quiet = [node.msg if isinstance(node, ast.Assert) else node.exc]
        out.update(offset(n) for q in quiet if q for n in ast.walk(q)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return out


def _compiles(code: str) -> bool:
    # A syntax error is "caught" by any check at all, so it says nothing about this one.
    try:
        compile(code, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _spread(candidates: list[Mutant], k: int, rng: random.Random) -> list[Mutant]:
    """Up to k mutants, one per line per round; a partial round takes evenly spaced lines."""
    by_line: dict[int, list[Mutant]] = {}
    for mutant in candidates:
        by_line.setdefault(mutant.line, []).append(mutant)
    for group in by_line.values():
        rng.shuffle(group)
    chosen: list[Mutant] = []
    for depth in range(max(map(len, by_line.values()), default=0)):
        layer = [g[depth] for _, g in sorted(by_line.items()) if len(g) > depth]
        need = k - len(chosen)
        if need <= 0:
            break
        if len(layer) > need:
            shift = rng.random()
            layer = [layer[int((i + shift) * len(layer) / need)] for i in range(need)]
        chosen += layer
    return chosen
