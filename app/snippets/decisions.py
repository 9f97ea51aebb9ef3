"""What a teacher decided about a check-strength analysis, and how it applies to a version.

Three kinds: a surviving mutant is *equivalent* (an answer equal to it is right); a *position*
or a whole *line* is excluded from strength (dead code the check cannot reach). A decision is
anchored to its line's text (and which of several identical lines it is) and its column, so it
holds for every version whose code at that place is unchanged: across edits of the check, of
other lines, and every re-analysis.
"""

from dataclasses import dataclass, field

from ..engine.tokens import eligible_spans

KINDS = ("equivalent", "position", "line")


@dataclass(frozen=True)
class Anchor:
    kind: str
    line_text: str
    occurrence: int  # which of the code's lines with this very text (0: the first)
    column: int | None = None  # 1-based, for a position or a mutant
    token: str | None = None
    replacement: str | None = None


@dataclass(frozen=True)
class Decision:
    id: int
    anchor: Anchor
    decided_by: str
    decided_at: object  # datetime
    version: str  # the version it was made on


@dataclass
class Resolved:
    """A version's decisions by place: (position, replacement), position, line; and the ones
    whose place this version no longer has."""

    equivalent: dict[tuple[int, str], Decision] = field(default_factory=dict)
    positions: dict[int, Decision] = field(default_factory=dict)
    lines: dict[int, Decision] = field(default_factory=dict)
    stale: list[Decision] = field(default_factory=list)

    def excluded(self, index: int, line: int) -> Decision | None:
        return self.positions.get(index) or self.lines.get(line)


def anchor(code: str, kind: str, *, index: int | None = None, line: int | None = None, replacement=None) -> Anchor:
    """The anchor of a decision about this code; ValueError when the place is not one of it."""
    rows = code.split("\n")
    if kind == "line":
        if line is None or not 0 < line <= len(rows) or not rows[line - 1].strip():
            raise ValueError("no such line")
        return Anchor(kind, rows[line - 1], rows[: line - 1].count(rows[line - 1]))
    span = next((s for s in eligible_spans(code) if s.index == index), None)
    if span is None or kind not in KINDS or (kind == "equivalent") != bool(replacement):
        raise ValueError("no such position")
    at = code.count("\n", 0, span.start)
    column = span.start - (code.rfind("\n", 0, span.start) + 1) + 1
    text = rows[at]
    return Anchor(kind, text, rows[:at].count(text), column, span.text, replacement if kind == "equivalent" else None)


def resolve(code: str, decisions: list[Decision]) -> Resolved:
    rows = code.split("\n")
    where: dict[tuple[str, int], int] = {}
    seen: dict[str, int] = {}
    for number, text in enumerate(rows, 1):
        where[(text, seen.get(text, 0))] = number
        seen[text] = seen.get(text, 0) + 1
    at: dict[tuple[int, int], object] = {}
    for span in eligible_spans(code):
        line = code.count("\n", 0, span.start) + 1
        at[(line, span.start - (code.rfind("\n", 0, span.start) + 1) + 1)] = span
    out = Resolved()
    for decision in decisions:
        a = decision.anchor
        line = where.get((a.line_text, a.occurrence))
        span = at.get((line, a.column)) if line and a.column else None
        if line and a.kind == "line":
            out.lines[line] = decision
        elif span is not None and span.text == a.token and a.kind == "position":
            out.positions[span.index] = decision
        elif span is not None and span.text == a.token and a.kind == "equivalent":
            out.equivalent[(span.index, a.replacement)] = decision
        else:
            out.stale.append(decision)
    return out


def decided(data: dict, resolved: Resolved) -> dict:
    """The stored report with the teacher's decisions applied: position states, counts and score,
    survivors still open, the mutants marked equivalent and the places excluded."""
    positions, open_, marked = [], [], []
    caught = counted = 0
    for p in data["positions"]:
        excluded = resolved.excluded(p["index"], p["line"])
        mutants = [{**m, "equivalent": (p["index"], m["replacement"]) in resolved.equivalent} for m in p["mutants"]]
        state = _state(p["state"], mutants, excluded)
        positions.append({**p, "mutants": mutants, "state": state, "excluded": _said(excluded)})
        if excluded is None:
            ran = [m for m in mutants if m["status"] != "not run" and not m["equivalent"]]
            counted += len(ran)
            caught += sum(m["status"] != "passed" for m in ran)
    lines = {p["index"]: p["line"] for p in data["positions"]}
    for m in data["survivors"]:
        if resolved.excluded(m["index"], lines.get(m["index"], m["line"])):
            continue
        decision = resolved.equivalent.get((m["index"], m["replacement"]))
        (marked if decision else open_).append({**m, "decision": _said(decision)})
    states = [p["state"] for p in positions]
    return {
        **data,
        "positions": positions,
        "survivors": open_,
        "equivalent": marked,
        "caught": caught,
        "counted": counted,
        "score": caught / counted if counted else 0.0,
        "counts": {s: states.count(s) for s in ("caught", "weak", "blind", "untested", "equivalent", "excluded")},
    }


def _state(raw: str, mutants: list[dict], excluded) -> str:
    if excluded is not None:
        return "excluded"
    if raw == "untested":
        return raw
    caught = any(m["status"] != "passed" for m in mutants)
    if any(m["status"] == "passed" and not m["equivalent"] for m in mutants):
        return "weak" if caught else "blind"
    return "caught" if caught else "equivalent"


def _said(decision: Decision | None) -> dict | None:
    if decision is None:
        return None
    return {
        "id": decision.id,
        "kind": decision.anchor.kind,
        "by": decision.decided_by,
        "at": decision.decided_at.isoformat() if hasattr(decision.decided_at, "isoformat") else decision.decided_at,
    }


def proven(judged: dict, resolved: Resolved, lines: dict[int, int]) -> frozenset[int]:
    """Positions where a passing run vouches for any answer: every mutant ran, some was caught,
    every survivor is marked equivalent, and the place is not excluded. `lines`: position → line."""
    survivors = judged.get("survivors", {})
    return frozenset(
        p
        for p in judged.get("tested", ())
        if resolved.excluded(p, lines.get(p, 0)) is None
        and all((p, r) in resolved.equivalent for r in survivors.get(str(p), ()))
    )
