"""UI strings go through gettext; the msgids are the Chinese UI text, so no catalog means Chinese.

An English catalog goes in app/locale/en/LC_MESSAGES/messages.mo (extract with Babel using
babel.cfg) and is chosen with CODECLOZE_LANGUAGE=en.
"""
import gettext
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
_translations: gettext.NullTranslations = gettext.NullTranslations()


def set_language(language: str) -> gettext.NullTranslations:
    global _translations
    _translations = gettext.translation("messages", LOCALE_DIR, [language], fallback=True)
    return _translations


def _(message: str, **params) -> str:
    text = _translations.gettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params) -> str:
    text = _translations.ngettext(singular, plural, n)
    return text % params if params else text
