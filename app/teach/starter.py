"""The filled-in snippet file the upload page offers as a start: every part of the format, in
use, with a reference that passes its own check (tests/test_upload_help.py runs it)."""

from pathlib import Path

STARTER = (Path(__file__).parent / "starter.md").read_text(encoding="utf-8")
