"""The hostile-input corpus: one small file per case under corpus/, its expectation in its header.

Header lines (leading comments):
    # expect: timeout|error     statuses the verdict may have
    # stdout-lacks: root:       text that must not appear in stdout (repeatable)
    # line: 3                   the line (of the case file) the verdict must point at

Cases may use names that the runner defines in a setup part (see `context_setup`):
DATA_FILE (a file inside a server data dir), DATABASE_FILE (the SQLite file, outside the data
dir, that DATABASE_URL points to in the HTTP tests), WEB_PORT (a TCP port listening on 127.0.0.1),
OUTSIDE_FILE (a path in a world-writable host directory), HOST_TMP_FILE (a path in the host's
/tmp) and CANARY_DIR (a world-writable host directory that must survive).
"""

from dataclasses import dataclass
from pathlib import Path

CASES = Path(__file__).with_name("corpus")


@dataclass(frozen=True)
class Expectation:
    statuses: frozenset[str]
    stdout_lacks: tuple[str, ...] = ()
    line: int | None = None


def _expectation(source: str) -> Expectation:
    fields: dict[str, list[str]] = {}
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].partition(":")
        fields.setdefault(key.strip(), []).append(value.strip())
    if "expect" not in fields:
        raise ValueError("corpus case without an '# expect:' line")
    line = fields.get("line", [None])[0]
    return Expectation(
        frozenset(fields["expect"][0].split("|")), tuple(fields.get("stdout-lacks", ())), int(line) if line else None
    )


def load_corpus() -> list[tuple[str, str, Expectation]]:
    """(name, source, expectation) for every case, sorted by name."""
    cases = []
    for path in sorted(CASES.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        cases.append((path.stem, source, _expectation(source)))
    return cases


def context_setup(**names) -> str:
    """A setup part defining the names the cases refer to."""
    return "".join(f"{name} = {value!r}\n" for name, value in names.items())
