"""UI strings go through gettext; the msgids are the Chinese UI text, so Chinese needs no catalog.

The language is per request: app/web/language.py chooses it and sets it here (a context variable,
so concurrent requests and the threads their sync routes run in each see their own). Catalogs
live in app/i18n/locale/<lang>/LC_MESSAGES/messages.po; `scripts/translations` extracts, updates and
compiles them (the .mo files are compiled by scripts/setup and at start-up when out of date).
"""

import gettext
from contextvars import ContextVar
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
SOURCE = "zh"  # the language of the msgids
LANGUAGES = ("zh", "en")  # offered in the switch, in this order

_catalogs: dict[str, gettext.NullTranslations] = {SOURCE: gettext.NullTranslations()}
_current: ContextVar[str] = ContextVar("language", default=SOURCE)


def catalog(language: str) -> gettext.NullTranslations:
    """The compiled catalog of `language` (loaded once; the source language has none)."""
    found = _catalogs.get(language)
    if found is None:
        found = _catalogs[language] = gettext.translation("messages", LOCALE_DIR, [language], fallback=True)
    return found


def set_language(language: str) -> None:
    """The language of what this request (or task) renders from now on."""
    catalog(language)
    _current.set(language)


def supported(tag: str | None) -> str | None:
    """The offered language a tag names ("en-GB" → "en", "zh-Hant" → "zh"), or None."""
    primary = (tag or "").strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in LANGUAGES else None


def language() -> str:
    return _current.get()


def _(message: str, **params) -> str:
    text = _catalogs[_current.get()].gettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params) -> str:
    text = _catalogs[_current.get()].ngettext(singular, plural, n)
    return text % params if params else text
