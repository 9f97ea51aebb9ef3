"""Execution credit: where a passing run may vouch for an answer that token match rejects.

Only what the check proves, or what a teacher decided. A passing answer is credited when every
position of its blank is *proven* (the version's complete analysis caught every mutant there, or
the teacher marked each survivor there equivalent, and the place is not excluded), or when it
has the reference's length and each token it changes is at a proven position or is a mutant the
teacher marked equivalent. Anything else that passes is *unproven* (运行无法确认) and counts as
not recalled; before the analysis is complete it is provisional, and judged again when it
completes (rejudging.py).
"""

from dataclasses import dataclass

from ..db import strength_decisions, strength_rows
from ..engine.score import covered_spans
from ..engine.tokens import candidate_spans, eligible_spans, token_pairs
from ..snippets.decisions import proven, resolve


@dataclass(frozen=True)
class Basis:
    """What a version's credit rests on: the analysis's state, its proven positions and the
    replacements a teacher marked equivalent, by position (in their compared form)."""

    state: str | None  # None: no analysis yet; "running", "failed" or "complete"
    proven: frozenset[int] = frozenset()
    marked: dict[int, frozenset[str]] | None = None


def basis(engine, snippet) -> Basis:
    state, judged = strength_rows.judged(engine, snippet.id, snippet.version)
    if state != "complete":
        return Basis(state)
    with engine.connect() as db:
        resolved = resolve(snippet.code, strength_decisions.in_force(db, snippet.id))
    lines = {s.index: snippet.code.count("\n", 0, s.start) + 1 for s in eligible_spans(snippet.code)}
    marked: dict[int, set[str]] = {}
    for index, replacement in resolved.equivalent:
        marked.setdefault(index, set()).update(c for _, c in token_pairs(replacement))
    return Basis(state, proven(judged, resolved, lines), {i: frozenset(r) for i, r in marked.items()})


def credited(engine, snippet, holes, verdicts, run) -> tuple[frozenset[str], str | None]:
    """The keys of blanks a passing run credits, and the version's analysis state (None: there is
    none yet; "complete", "running" or "failed") when a blank needed it."""
    doubtful = [(h, v) for h, v in zip(holes, verdicts) if not (v.correct or v.revealed or not v.given.strip())]
    if getattr(run, "status", None) != "passed" or not doubtful:
        return frozenset(), "complete"  # nothing for execution to vouch for
    found = basis(engine, snippet)
    if found.state != "complete":
        return frozenset(), found.state
    keys = frozenset(
        h.key
        for h, v in doubtful
        if (where := covered_spans(snippet.code, h)) is not None
        and vouched(snippet.code, where, v.expected, v.given, found)
    )
    return keys, found.state


def vouched(code: str, where: tuple[int, int], expected: str, given: str, found: Basis) -> bool:
    """Whether a passing `given` in the blank covering candidates `where` is credited."""
    first, last = where
    inside = [s.index for s in eligible_spans(code) if first <= s.index <= last]
    if inside and all(i in found.proven for i in inside):
        return True
    ours, theirs = token_pairs(expected), token_pairs(given)
    if len(ours) != len(theirs):
        return False
    at = _positions(code, first, last, ours)
    changed = [(at[i], c) for i, ((_, a), (_, c)) in enumerate(zip(ours, theirs)) if a != c]
    return bool(changed) and all(
        i is not None and (i in found.proven or c in (found.marked or {}).get(i, ())) for i, c in changed
    )


def _positions(code: str, first: int, last: int, pairs) -> list[int | None]:
    """The candidate index of each token of a blank's reference text (None for keywords and `=`,
    which are no candidates): the candidates inside, matched in order by their text."""
    inside = list(candidate_spans(code)[first : last + 1])
    out: list[int | None] = []
    for typed, _ in pairs:
        if inside and inside[0].text == typed:
            out.append(inside.pop(0).index)
        else:
            out.append(None)
    return out
