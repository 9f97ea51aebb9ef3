"""Check-strength analyses shipped with the bundled snippets, so a server judges its first answer
with a complete analysis: `strength/<id>.json` beside the snippet files.

Each is keyed by everything its result depends on: the analysis's method and mutants per
position, the setup, code and check, and the Python and torch that ran it. A key that does not
match (a snippet edited, torch upgraded) is no analysis: the server makes one at start-up before
it says it is ready. `python -m app.snippets check --strength --write-analysis FILE` writes them.
"""

import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path

from .model import Snippet
from .mutants import PER_POSITION
from .strength import METHOD
from .strength_report import judged, relocated

FOLDER = "strength"


def analysis_key(snippet: Snippet) -> str:
    parts = [METHOD, str(PER_POSITION), f"{sys.version_info.major}.{sys.version_info.minor}", _version("torch")]
    parts += [snippet.setup, snippet.code, snippet.check]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""


def shipped(folder: Path, snippet: Snippet) -> dict | None:
    """The shipped report of this very snippet (its key matches), with what grading needs of it."""
    try:
        data = json.loads((folder / FOLDER / f"{snippet.id}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != analysis_key(snippet) or not isinstance(data.get("report"), dict):
        return None
    report = relocated(data["report"], snippet)
    return {"report": report, "judged": judged(report), "seconds": report.get("seconds")}


def write(folder: Path, snippet: Snippet, report: dict) -> Path:
    path = folder / FOLDER / f"{snippet.id}.json"
    path.parent.mkdir(exist_ok=True)
    body = {"snippet": snippet.id, "key": analysis_key(snippet), "report": report}
    path.write_text(json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8")
    return path
