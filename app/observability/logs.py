"""The app's log lines: one JSON object per line (or plain text), on stderr.

Every logger under `codecloze` goes through one handler. A record's `extra` fields become keys
of its JSON object (plain text appends them as key=value), so a line can be filtered by field.
"""

import logging
import sys

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

ROOT = "codecloze"


class StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a record comes (test runners swap it per test)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        fields = " ".join(
            f"{k}={v}"
            for k, v in record.__dict__.items()
            if k not in RESERVED_ATTRS and k != "taskName" and not k.startswith("_")
        )
        line = super().format(record)
        return f"{line} {fields}" if fields else line


def formatter(kind: str) -> logging.Formatter:
    if kind == "text":
        return TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    return JsonFormatter(
        "{asctime}{levelname}{name}{message}",
        style="{",
        timestamp=False,
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        reserved_attrs=[*RESERVED_ATTRS, "taskName"],
    )


def configure(level: str = "INFO", kind: str = "json") -> logging.Handler:
    """Replaces the handler an earlier app installed (tests build many apps in one process)."""
    logger = logging.getLogger(ROOT)
    for old in [h for h in logger.handlers if isinstance(h, StderrHandler)]:
        logger.removeHandler(old)
    handler = StderrHandler()
    handler.setFormatter(formatter(kind))
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    return handler
