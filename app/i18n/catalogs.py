"""The compiled catalogs (.mo) follow their sources (.po): compiled by scripts/setup and
scripts/translations, and here at start-up when missing or older, so a fresh clone just runs."""

import logging
import os
import tempfile
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app.i18n import LOCALE_DIR

log = logging.getLogger("codecloze")


def sources(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    return sorted(locale_dir.glob("*/LC_MESSAGES/messages.po"))


def stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_stale(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile each catalog whose .mo is missing or older than its .po; the ones compiled."""
    done = []
    for po in filter(stale, sources(locale_dir)):
        try:
            _compile(po)
        except OSError as err:  # a read-only install: the packaged .mo (if any) is served as is
            log.warning("cannot compile %s: %s", po, err)
            continue
        done.append(po)
    return done


def _compile(po: Path) -> None:
    with po.open("rb") as source:
        catalog = read_po(source, locale=po.parent.parent.name)
    # Written beside and renamed: workers starting together never read half a file.
    fd, tmp = tempfile.mkstemp(dir=po.parent, suffix=".mo.tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            write_mo(out, catalog)  # fuzzy entries are left out, as pybabel compile does
        os.replace(tmp, po.with_suffix(".mo"))
    except BaseException:
        os.unlink(tmp)
        raise
