"""JSON columns' text, by orjson where it writes and reads exactly what the standard library
would, and by the standard library where it does not: the attempt writer encodes ~18 values and
decodes ~14 per attempt (cards, blanks, wrong answers); a 32-blank `blanks` text takes 10 µs to
write and 9 to read, against 30 and 33 (bench/RESULTS.md, issue 22, sixth round).

Where orjson differs: it refuses an int past 64 bits and a lone surrogate (TypeError), writes a
non-finite float as `null`, reads an int past 64 bits as a float, and refuses `Infinity`, `NaN`
and a lone surrogate's escape. So a value orjson refuses, or writes with a `null` in it, is
written by the standard library, and that text starts with a space (JSON allows it; orjson never
writes one): one character says who reads it back, where scanning the text would cost more than
parsing it. Text orjson cannot read falls back to the standard library as well.

Rows written before orjson carry no mark; their ints are spans, counts, days and FSRS states, none
past 64 bits, and one holding `Infinity` or `NaN` is read by the fallback."""

import json

import orjson

_STDLIB_MARK = (" ", b" ")  # the first character of the standard library's text, as str or bytes


def dumps(value) -> str:
    """`json.dumps(value)`'s value as compact text."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # an int past 64 bits, a lone surrogate
        return _stdlib_dumps(value)
    if b"null" in text:  # maybe a None, maybe a non-finite float that orjson wrote as null
        return _stdlib_dumps(value)
    return text.decode()


def loads(text):
    """`json.loads(text)`, for str or bytes as SQLite and psycopg hand them over."""
    if text[:1] in _STDLIB_MARK:
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # Infinity, NaN or a lone surrogate's escape from an older row
        return json.loads(text)


def _stdlib_dumps(value) -> str:
    # ASCII escapes, as before orjson: a lone surrogate stays text every database can store.
    return " " + json.dumps(value, separators=(",", ":"))
