"""JSON columns' text, by orjson: the attempt writer encodes ~21 values and decodes ~19 per
attempt (cards, blanks, wrong answers): 155 µs with the standard library, 34 with orjson
(bench/RESULTS.md, issue 22, sixth round)."""

import json

import orjson


def dumps(value) -> str:
    """`json.dumps(value)` as compact text; what orjson refuses (an int past 64 bits) json writes."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


loads = orjson.loads  # str or bytes, as SQLite and psycopg hand them over
