"""Every UI string of the code and templates has an English translation, and the compiled
catalog is the one the app serves."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.i18n.catalogs import compile_stale, stale
from app.settings import PROJECT_DIR

pytestmark = pytest.mark.server

EN_PO = PROJECT_DIR / "app/i18n/locale/en/LC_MESSAGES/messages.po"
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|%%")


def extracted(root: Path, out: Path) -> set:
    """The msgids `pybabel extract` finds under root with the repo's babel.cfg, as scripts/translations runs it."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "-q",
            "extract",
            "-F",
            str(PROJECT_DIR / "babel.cfg"),
            "--no-location",
            "-o",
            str(out),
            ".",
        ],
        cwd=root,
        check=True,
        capture_output=True,
    )
    with out.open("rb") as f:
        return {m.id for m in read_po(f) if m.id}


def untranslated(msgids: set, po: Path) -> list:
    """The msgids the catalog lacks, leaves empty, or marks fuzzy (never compiled)."""
    with po.open("rb") as f:
        catalog = read_po(f)
    missing = []
    for msgid in msgids:
        found = catalog.get(msgid)
        strings = found.string if found and isinstance(found.string, tuple) else (found and found.string,)
        if found is None or found.fuzzy or not all(strings):
            missing.append(msgid)
    return missing


def test_every_code_and_template_string_has_an_english_translation(tmp_path):
    msgids = extracted(PROJECT_DIR, tmp_path / "messages.pot")
    assert len(msgids) > 250  # the whole UI, not an empty extraction
    assert untranslated(msgids, EN_PO) == []


def test_a_new_string_without_translation_is_caught(tmp_path):
    # The check above on a tree with one more template string: it must be reported.
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates/new.html").write_text('<p>{{ _("我的进度") }} {{ _("班级概览") }}</p>')
    (tmp_path / "app").mkdir()
    (tmp_path / "app/new.py").write_text('from .i18n import _\nMESSAGE = lambda: _("新的错误信息。")\n')
    msgids = extracted(tmp_path, tmp_path / "messages.pot")
    assert msgids == {"我的进度", "班级概览", "新的错误信息。"}
    assert sorted(untranslated(msgids, EN_PO)) == sorted(["班级概览", "新的错误信息。"])


def test_a_fuzzy_translation_counts_as_missing(tmp_path):
    po = tmp_path / "messages.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        '#, fuzzy\nmsgid "保存"\nmsgstr "Save"\n\nmsgid "取消"\nmsgstr "Cancel"\n',
        encoding="utf-8",
    )
    assert untranslated({"保存", "取消"}, po) == ["保存"]


def test_translations_keep_every_placeholder():
    with EN_PO.open("rb") as f:
        catalog = read_po(f)
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = sorted(PLACEHOLDER.findall(ids[0]))
        for text in strings:
            assert sorted(PLACEHOLDER.findall(text)) == wanted, message.id


def test_english_text_uses_english_punctuation():
    """A full-width colon or comma is the Chinese source showing through (a strength tip once read
    "caught：…")."""
    with EN_PO.open("rb") as f:
        catalog = read_po(f)
    wide = [
        message.id
        for message in catalog
        if message.id
        for text in (message.string if isinstance(message.string, tuple) else (message.string,))
        if re.search("[：，（）、。；！？]", text)
    ]
    assert wide == []


def test_the_strength_heatmaps_tips_read_in_english():
    from app.teach.strength_pages import _tip

    position = {
        "state": "weak",
        "mutants": [{"replacement": "+", "status": "passed"}, {"replacement": "-", "status": "killed"}],
    }
    i18n.set_language("en")
    try:
        english = _tip(position)
    finally:
        i18n.set_language("zh")
    assert "：" not in english and "、" not in english and english.startswith(i18n.catalog("en").gettext("弱") + ": ")


def test_the_compiled_catalog_follows_its_source(tmp_path):
    locale = tmp_path / "locale"
    target = locale / "en/LC_MESSAGES"
    target.mkdir(parents=True)
    (target / "messages.po").write_bytes(EN_PO.read_bytes())
    assert stale(target / "messages.po")
    assert compile_stale(locale) == [target / "messages.po"]
    assert not stale(target / "messages.po") and compile_stale(locale) == []
    # The repo's own .mo is compiled (the app did it at import) and serves the English text.
    assert not stale(EN_PO)
    assert i18n.catalog("en").gettext("我的进度") == "My progress"
