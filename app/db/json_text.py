"""JSON columns' text, by orjson where it writes and reads exactly what the standard library
would, and by the standard library where it does not: the attempt writer encodes ~21 values and
decodes ~19 per attempt (cards, blanks, wrong answers), 155 µs with the standard library alone
(bench/RESULTS.md, issue 22, sixth round).

Where orjson differs: it refuses an int past 64 bits (TypeError), writes a non-finite float as
`null`, reads an int of more digits than 64 bits hold as a float, and refuses `Infinity`, `NaN`
and a lone surrogate's escape. Each of those is seen cheaply in its text, and then the standard
library does the whole value."""

import json
import re

import orjson

# Tokens orjson reads otherwise (a long int as a float) or not at all. A string holding one only
# costs the slower path.
_STDLIB_TOKENS = re.compile(r"Infinity|NaN|\d{19}")
_STDLIB_TOKENS_BYTES = re.compile(rb"Infinity|NaN|\d{19}")


def dumps(value) -> str:
    """`json.dumps(value)`'s value as compact text."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # an int past 64 bits, a lone surrogate
        return _stdlib_dumps(value)
    if b"null" in text:  # maybe a None, maybe a non-finite float orjson wrote as null
        return _stdlib_dumps(value)
    return text.decode()


def loads(text):
    """`json.loads(text)`, for str or bytes as SQLite and psycopg hand them over."""
    tokens = _STDLIB_TOKENS if isinstance(text, str) else _STDLIB_TOKENS_BYTES
    if tokens.search(text):
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # a lone surrogate's escape, which json reads
        return json.loads(text)


def _stdlib_dumps(value) -> str:
    # ASCII escapes, as before orjson: a lone surrogate stays text every database can store.
    return json.dumps(value, separators=(",", ":"))
