"""`codecloze import DIR [--publish] [--home]`: a course folder into the configured database, at once.

Same rules as `POST /api/import`: every file validated (its reference code run in the sandbox),
every problem of every file printed, and all saved in one transaction or nothing. Settings come
from the environment (CODECLOZE_*, DATABASE_URL), as for the server.
"""

import argparse
import asyncio
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from app.i18n import set_language
from app.i18n.catalogs import compile_stale
from app.settings import Settings, wrong_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codecloze", description="codecloze's command line.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("import", help="import a folder of snippet files (and its _index.md) at once")
    run.add_argument("folder", metavar="DIR")
    run.add_argument("--publish", action="store_true", help="publish the new snippets (default: drafts)")
    run.add_argument(
        "--home", action="store_true", help="let the folder's _index.md change the home page (default: it is ignored)"
    )
    run.add_argument("--no-run", action="store_true", help="do not run the reference code (format and imports only)")
    return parser


def _catalog(settings: Settings):
    from app.db.snippet_rows import SnippetRows
    from app.db.store import Store
    from app.snippets.library import SnippetLibrary
    from app.teach.catalog import Catalog

    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # as the server makes it
    if not settings.database_url:
        os.close(os.open(settings.data_dir / "codecloze.db", os.O_CREAT | os.O_WRONLY, 0o600))
    rows = SnippetRows(Store(settings.sqlalchemy_url, settings.db_busy_ms).engine)
    library = SnippetLibrary(rows)
    library.load_dir(settings.snippets_dir)
    catalog = Catalog(rows, library)
    catalog.load()
    return catalog


async def _sandbox(settings: Settings, skip: bool):
    """The sandbox as the server configures it (limits, packages), hiding the data dir."""
    if skip or not settings.execution:
        return None
    from app.sandbox import Limits, Sandbox

    limits = Limits(
        cpu_seconds=settings.cpu_seconds, wall_seconds=settings.wall_seconds, memory_bytes=settings.memory_mb << 20
    )
    sandbox = Sandbox(
        limits,
        workers=min(4, settings.workers),
        data_dirs=(settings.data_dir,),
        packages=settings.package_names,
        uid_base=61000,
    )  # uids of its own, as codecloze-check
    await sandbox.start()
    return sandbox


def print_report(folder: str, report) -> None:
    from app.snippets.__main__ import problem_line

    for name, problems in report.problems.items():
        for problem in problems:
            print(problem_line(str(Path(folder) / name), problem))
    if report.ok:
        for snippet_id, change in (report.changes or {}).items():
            print(f"{Path(folder) / snippet_id}.md: {change}")
        if report.home is not None:
            print(f"{Path(folder) / '_index.md'}: {home_line(report.home)}")
    state = f"{len(report.snippets)} snippet(s), saved" if report.saved else "nothing saved"
    print(f"{folder}: {state}")


def home_line(home) -> str:
    """What the `_index.md` did to the home page, in one line."""
    if not home.apply:
        return "home page unchanged (--home applies it)"
    if not home.changes_anything:
        return "home page unchanged (the same title, intro and sections)"
    parts = [f"title {home.title_before!r} -> {home.title_after!r}"] if home.title_before != home.title_after else []
    parts += ["intro"] if home.intro_changed else []
    parts += ["sections"] if home.sections_changed else []
    return "home page changed: " + ", ".join(parts)


async def _import(args, settings: Settings) -> int:
    from app.snippets.course import ArchiveRefused, read_dir
    from app.teach.course_import import import_course

    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"{folder}: not a folder", file=sys.stderr)
        return 2
    try:
        files = read_dir(folder)
    except ArchiveRefused as err:
        print("\n".join(f"{folder}: {problem}" for problem in err.args[0]), file=sys.stderr)
        return 2
    catalog = _catalog(settings)
    sandbox = await _sandbox(settings, args.no_run)
    try:
        report = await import_course(
            files, catalog, sandbox=sandbox, packages=settings.package_names, publish=args.publish, home=args.home
        )
    finally:
        if sandbox is not None:
            await sandbox.close()
    print_report(args.folder, report)
    return 0 if report.saved else 1


def main(argv: list[str] | None = None) -> int:
    sys.stdout.reconfigure(errors="backslashreplace")
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    compile_stale()
    try:
        settings = Settings()
    except ValidationError as err:
        print("\n".join(["codecloze: a setting is wrong:", *wrong_settings(err)]), file=sys.stderr)
        return 2
    set_language(settings.language)
    try:
        return asyncio.run(_import(args, settings))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
