"""Every bundled snippet's reference code passes its own check, run in a plain interpreter.

One interpreter imports torch once and forks a child per program, so the suite stays fast.
"""

import json
import subprocess
import sys

import pytest

from app.settings import PROJECT_DIR
from app.snippets.library import SnippetLibrary

pytestmark = pytest.mark.server

RUNNER = """
import json, os, sys, traceback
import torch
programs = json.load(sys.stdin)
codes = {}
for key, parts in programs.items():
    pid = os.fork()
    if pid == 0:
        try:
            namespace = {"__name__": "__main__"}
            for name, source in parts:
                exec(compile(source, f"<{name}>", "exec"), namespace)
            os._exit(0)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
    codes[key] = os.waitpid(pid, 0)[1]
print(json.dumps(codes))
"""


def snippets():
    library = SnippetLibrary()
    library.load_dir(PROJECT_DIR / "snippets")
    return library.all()


def broken(snippet) -> str:
    """The exercise with its last blank's answer replaced by nonsense."""
    blank = snippet.blanks[-1]
    return snippet.code[: blank.start] + "None" + snippet.code[blank.end :]


@pytest.fixture(scope="module")
def exit_codes() -> dict[str, int]:
    programs = {}
    for s in snippets():
        programs[s.id] = [("setup", s.setup), ("code", s.code), ("check", s.check)]
        if s.is_exercise:
            programs[f"{s.id}:broken"] = [("setup", s.setup), ("code", broken(s)), ("check", s.check)]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER], input=json.dumps(programs), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("snippet", snippets(), ids=lambda s: s.id)
def test_reference_passes_its_check(snippet, exit_codes):
    assert exit_codes[snippet.id] == 0


@pytest.mark.parametrize("snippet", [s for s in snippets() if s.is_exercise], ids=lambda s: s.id)
def test_check_rejects_a_broken_exercise(snippet, exit_codes):
    """The checks are not vacuous."""
    assert exit_codes[f"{snippet.id}:broken"] != 0
