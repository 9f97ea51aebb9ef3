"""JSON columns' text (app/db/json_text.py) reads back as the standard library's would."""

import json

from hypothesis import given
from hypothesis import strategies as st

from app.db import json_text

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text() | st.integers(), inner),
    max_leaves=20,
)


@given(VALUES)
def test_any_json_value_reads_back_as_the_standard_librarys_text_does(value):
    text = json_text.dumps(value)
    assert isinstance(text, str)
    assert json_text.loads(text) == json.loads(json.dumps(value))


def test_what_orjson_refuses_the_standard_library_writes():
    huge = {"seed": 2**70, 3: "three"}  # past 64 bits, and a key that is no string
    assert json_text.loads(json_text.dumps(huge)) == {"seed": 2**70, "3": "three"}


def test_the_text_is_compact_and_keeps_non_ascii_as_it_is():
    assert json_text.dumps({"答": [1, "二"]}) == '{"答":[1,"二"]}'


def test_what_orjson_writes_or_reads_otherwise_is_the_standard_librarys():
    for value in (float("inf"), [-(2**63) - 1, float("-inf")], {"n": 2**64}, "\ud800", [None]):
        expected = json.loads(json.dumps(value))
        text = json_text.dumps(value)
        assert json_text.loads(text) == expected
        assert json_text.loads(text.encode()) == expected  # bytes, as psycopg gives them


def test_rows_written_before_orjson_read_as_they_were_written():
    for value in ({"答": [1, "二"], "n": None}, [float("inf"), float("nan")], "\ud800"):
        text = json.dumps(value)  # SQLAlchemy's default serializer, before orjson
        assert json.dumps(json_text.loads(text)) == text
