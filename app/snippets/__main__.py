"""`python -m app.snippets check FILE...` (also `codecloze-check FILE...`): validate snippet files.

Output is one `PATH: ok` or `PATH:LINE: problem` line per finding, like a compiler, so editors
and CI can parse it; notes on how code was run go to stderr. Exit code 0 when every file passes,
1 otherwise, 2 on usage errors.
"""

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
from pathlib import Path

from app.i18n import supported
from app.i18n.catalogs import compile_stale

from ..i18n import set_language
from ..sandbox.packages import parse_setting
from ..sandbox.types import Verdict
from .files import MAX_BYTES
from .mutants import PER_POSITION
from .strength import check_strength
from . import shipped_strength
from .hints import failure_text, reason_text
from .strength_report import report_data
from .validate import validate

RUN_SECONDS = 30  # per run without the sandbox; generous, since importing torch takes a while
_MARK = "\x00codecloze-verdict:"
# The plain-subprocess runner: setup, code and check in one namespace, the verdict as the last line.
_RUNNER = r"""
import json, sys, traceback
ns = {"__name__": "__main__"}
job = json.load(sys.stdin)
verdict = {"status": "passed", "message": ""}
for name, source in job["parts"]:
    try:
        exec(compile(source, f"<{name}>", "exec"), ns)
    except BaseException as exc:
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == f"<{name}>"]
        failed = isinstance(exc, AssertionError) and name == job["check_part"]
        verdict = {"status": "failed" if failed else "error", "part": name,
                   "line": (lines or [getattr(exc, "lineno", None)])[-1],
                   "message": (str(exc) or type(exc).__name__) if failed else f"{type(exc).__name__}: {exc}"}
        break
print("\n" + MARK + json.dumps(verdict), flush=True)
"""


class PlainRunner:
    """The sandbox's `run` without confinement: one `python` per job with a timeout, for
    machines where the sandbox cannot start. Only for an author's own files."""

    def __init__(self, seconds: float = RUN_SECONDS):
        self.seconds, self.workers = seconds, os.cpu_count() or 1

    async def run(self, job) -> Verdict:
        with tempfile.TemporaryDirectory(prefix="codecloze-run-") as work_dir:  # files a job writes go with it
            return await self._run_in(job, work_dir)

    async def _run_in(self, job, work_dir: str) -> Verdict:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-c",
            f"MARK = {_MARK!r}\n{_RUNNER}",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            cwd=work_dir,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(json.dumps(job.as_dict()).encode()), self.seconds)
        except TimeoutError:
            return Verdict("timeout", f"wall-clock limit ({self.seconds:g} s) reached")
        finally:
            if proc.returncode is None:  # timed out or cancelled: the job's whole process group goes
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
        text, _, verdict = out.decode(errors="replace").rpartition(_MARK)
        if not verdict:
            return Verdict("crashed", f"python exited with code {proc.returncode}", stderr=err.decode(errors="replace"))
        return Verdict.from_dict({**json.loads(verdict), "stdout": text, "stderr": err.decode(errors="replace")})

    async def close(self) -> None:
        pass


async def _runner(kind: str):
    """The sandbox when it starts (or is asked for), else the plain runner; says which on stderr."""
    if kind != "python":
        try:
            from ..sandbox import Limits, Sandbox

            # Its own uids: rlimits such as the process count are per uid, shared with a server's sandbox.
            sandbox = Sandbox(
                Limits(cpu_seconds=10, wall_seconds=20), workers=min(4, os.cpu_count() or 1), uid_base=61000
            )
            await sandbox.start()
            print("running code in the sandbox", file=sys.stderr)
            return sandbox
        except Exception as exc:  # any failure to start means: fall back, or stop if it was required
            if kind == "sandbox":
                print(f"error: the sandbox did not start: {exc}", file=sys.stderr)
                raise SystemExit(2) from None
            print(f"the sandbox did not start ({exc})", file=sys.stderr)
    print(f"running code in a plain python subprocess, not confined, {RUN_SECONDS} s per run", file=sys.stderr)
    return PlainRunner()


def _read(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes, or why there are none. Reads at most one byte past the limit, so a
    huge file or a device such as /dev/zero costs nothing."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None, "no such file"
    except IsADirectoryError:
        return None, "is a directory, not a snippet file"
    except OSError as err:
        return None, f"cannot read: {err.strerror or err}"
    if len(data) > MAX_BYTES:
        return None, f"file is larger than the limit of {MAX_BYTES // 1024} KB"
    return data, None


async def _check_file(name: str, runner, args) -> bool:
    path = Path(name)
    data, problem = _read(path)
    if problem:
        print(f"{name}: {problem}")
        return False
    if path.name.startswith("_"):
        print(f"{name}: skipped (files whose name starts with '_' are not snippets)")
        return True
    report = await validate(
        data,
        path.stem,
        sandbox=runner,
        editing=True,
        packages=parse_setting(os.environ.get("CODECLOZE_SANDBOX_PACKAGES")),
    )
    for problem in report.problems:
        print(problem_line(name, problem))
    if not report.ok:
        return False
    print(f"{name}: ok")
    if args.strength:
        strength = await check_strength(
            report.snippet, runner, per_position=args.per_position, budget_seconds=args.budget
        )
        _print_strength(name, report.snippet, strength)
        if args.write_analysis:
            if not strength.complete or args.per_position != PER_POSITION:
                print(f"{name}: analysis not written: it must be complete, with the default --per-position")
                return False
            print(f"{name}: analysis written to {write_analysis(path, report.snippet, strength)}")
    return True


def _print_strength(name: str, snippet, strength) -> None:
    """A summary line, then every position and every surviving mutant as `FILE:LINE:COLUMN: …:
    the line's text` (the column counts in the drill code), each survivor's hints below it."""
    data = report_data(strength, snippet)
    not_run = data["mutants"] - data["run"]
    likely = sum(m["likely_equivalent"] for m in data["survivors"])
    counts = ", ".join(f"{n} {state}" for state, n in data["counts"].items())
    print(
        f"{name}: check strength {data['score']:.0%}: {data['caught']} of {data['run']} mutants caught"
        + (f", {not_run} not run" if not_run else "")
        + f", {len(data['survivors'])} survive ({likely} likely equivalent); {len(data['positions'])} positions: "
        + f"{counts} ({strength.seconds:.1f} s)"
    )
    for failure in data["reference_failures"]:
        print(f"{name}: the reference did not pass a traced run: {failure_text(failure)}")
    for p in data["positions"]:
        print(f"{name}:{p['file_line']}:{p['column']}: {p['state']} {p['text']!r}: {p['line_text'].strip()}")
    for m in data["survivors"]:
        print(
            f"{name}:{m['file_line']}:{m['column']}: mutant {m['original']!r} → {m['replacement']!r} survives: "
            f"{m['line_text'].strip()}"
        )
        for reason in m["reasons"]:
            print(f"    hint: {reason_text(reason)}")


def write_analysis(path: Path, snippet, strength) -> Path:
    """The analysis shipped beside a bundled snippet (shipped_strength.py), so a server serving
    it never judges before its analysis is complete."""
    return shipped_strength.write(path.parent, snippet, report_data(strength, snippet))


def problem_line(name: str, problem) -> str:
    """`file:line:col: message`, then the line itself indented, as compilers print them."""
    if not problem.line:
        return f"{name}: {problem.message}"
    where = f"{name}:{problem.line}:{problem.column}" if problem.column else f"{name}:{problem.line}"
    return f"{where}: {problem.message}" + (f"\n    {problem.text}" if problem.text else "")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_program(),
        description="Validate snippet files: format, id, and that the reference code passes its own check.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate snippet files")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--no-run", action="store_true", help="check the format only; run no code")
    check.add_argument(
        "--strength",
        action="store_true",
        help="also measure the check at every position: a few mutants each, caught or not",
    )
    check.add_argument(
        "--runner",
        choices=("auto", "sandbox", "python"),
        default="auto",
        help="where code runs: the sandbox, a plain python subprocess, or the first that works",
    )
    check.add_argument(
        "--per-position", type=int, default=PER_POSITION, metavar="N", help="mutants at most per position"
    )
    check.add_argument("--budget", type=float, default=300, metavar="SECONDS", help="time for all mutants of a file")
    check.add_argument(
        "--write-analysis",
        action="store_true",
        help="with --strength: write the analysis beside the file (strength/ID.json) to ship it with bundled snippets",
    )
    return parser


async def _check(args) -> int:
    runner = None if args.no_run else await _runner(args.runner)
    try:
        passed = [await _check_file(name, runner, args) for name in args.files]
    finally:
        if runner is not None:
            await runner.close()
    return 0 if all(passed) else 1


def _program() -> str:
    return "python -m app.snippets" if Path(sys.argv[0]).name == "__main__.py" else "codecloze-check"


def main(argv: list[str] | None = None) -> int:
    # Non-UTF-8 file names and a non-UTF-8 terminal must not turn a report into a traceback.
    sys.stdout.reconfigure(errors="backslashreplace")
    argv = sys.argv[1:] if argv is None else argv
    if _program() == "codecloze-check" and argv[:1] not in (["check"], ["-h"], ["--help"]):
        argv = ["check", *argv]  # the console script's only command goes without saying
    parser = _parser()
    args = parser.parse_args(argv)
    if args.strength and args.no_run:
        parser.error("--strength runs code; it cannot be combined with --no-run")
    if args.write_analysis and not args.strength:
        parser.error("--write-analysis needs --strength")
    if args.per_position < 1 or args.budget <= 0:
        parser.error("--per-position and --budget must be positive")
    compile_stale()  # problems are UI text, in the server's default language
    set_language(supported(os.environ.get("CODECLOZE_LANGUAGE")) or "zh")
    try:
        return asyncio.run(_check(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
