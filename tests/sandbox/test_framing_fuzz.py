"""Whatever bytes a job writes to its result pipe, the server's decoder either yields a
well-formed report or raises FrameError (that job's "crashed"), and a verdict built from it can
always be sent on and rendered as UTF-8."""

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.sandbox import framing, reports
from app.sandbox.outcome import outcome
from app.sandbox.types import Limits

pytestmark = pytest.mark.unit

LIMITS = Limits().as_dict()
JOB_PIPE_LIMIT = 1 << 20  # what process.JobProcess allows per frame

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
report_like = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["passed", "failed", "error", "memory", "x"]) | json_values,
        "message": st.text() | json_values,
        "part": st.text() | json_values,
        "line": st.integers(-5, 1 << 40) | json_values,
        "column": st.integers(-5, 1 << 40) | json_values,
    },
)
frames = st.one_of(
    st.builds(lambda v: {"ready": v}, st.dictionaries(st.text(max_size=10), st.booleans()) | json_values),
    st.builds(lambda v: {"result": v}, report_like | json_values),
    st.builds(lambda v: {"setup_error": v}, st.text() | json_values),
    json_values,
)


def _framed(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:])]


def _consume(chunks: list[bytes]) -> list[dict]:
    """What process.JobProcess does with the pipe, up to the first refusal."""
    buffer, ready, out = framing.FrameBuffer(JOB_PIPE_LIMIT), False, []
    for chunk in chunks:
        for frame in buffer.feed(chunk):
            report = reports.job_frame(frame, ready)
            ready = ready or "ready" in report
            out.append(report)
    return out


def _assert_well_formed(report: dict) -> None:
    if "ready" in report:
        assert all(isinstance(k, str) and isinstance(v, bool) for k, v in report["ready"].items())
        return
    verdict = outcome(LIMITS, None, report, 0, 0.0)
    assert set(verdict) <= {"status", "message", "part", "line", "column"}
    assert verdict["status"] in ("passed", "failed", "error", "timeout", "memory", "crashed", "output")
    assert verdict.get("line") is None or isinstance(verdict["line"], int)
    assert verdict.get("column") is None or isinstance(verdict["column"], int)
    # The server sends it on and the web app renders it: strict UTF-8 must work.
    json.dumps(verdict, ensure_ascii=False).encode("utf-8")
    assert framing.FrameBuffer().feed(framing.encode(verdict)) == [verdict]


def _only_frame_errors(chunks: list[bytes]) -> None:
    try:
        reports_seen = _consume(chunks)
    except framing.FrameError:
        return
    for report in reports_seen:
        _assert_well_formed(report)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=2000), st.lists(st.integers(0, 4000), max_size=6))
def test_random_bytes(data, cuts):
    _only_frame_errors(_chunks(data, cuts))


@settings(max_examples=300, deadline=None)
@given(st.lists(frames, min_size=1, max_size=3), st.lists(st.integers(0, 4000), max_size=6))
def test_json_frames_of_any_shape(values, cuts):
    data = b"".join(_framed(json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")) for v in values)
    _only_frame_errors(_chunks(data, cuts))


@settings(max_examples=200, deadline=None)
@given(st.lists(frames, min_size=1, max_size=3), st.integers(1, 50))
def test_truncated_frames_never_decode_partially(values, cut):
    framed = [_framed(json.dumps(v).encode()) for v in values]
    truncated = b"".join(framed)[: max(0, sum(map(len, framed)) - cut)]
    buffer = framing.FrameBuffer(JOB_PIPE_LIMIT)
    decoded = buffer.feed(truncated)
    assert len(decoded) < len(values) and decoded == [json.loads(f[4:]) for f in framed[: len(decoded)]]
    assert buffer.pending == (len(truncated) > sum(map(len, framed[: len(decoded)])))


@settings(max_examples=100, deadline=None)
@given(st.integers(framing.MAX_DEPTH + 1, 300_000), st.sampled_from(["[", '{"a":']), st.binary(max_size=20))
def test_deep_nesting_is_refused_not_recursed(depth, opener, tail):
    closer = "]" if opener == "[" else "}"
    body = (opener * depth + "1" + closer * depth).encode() + tail
    try:
        _consume([_framed(body)])
    except framing.FrameError:
        return
    raise AssertionError("a deeply nested frame was accepted")


@settings(max_examples=100, deadline=None)
@given(st.integers(JOB_PIPE_LIMIT + 1, (1 << 32) - 1), st.binary(max_size=100))
def test_oversized_headers_are_refused_at_once(size, rest):
    try:
        _consume([struct.pack(">I", size) + rest])
    except framing.FrameError:
        return
    raise AssertionError("a frame above the limit was waited for")


@settings(max_examples=200, deadline=None)
@given(
    report_like.filter(lambda r: all(isinstance(r.get(k, ""), str) for k in ("status", "message"))),
    st.lists(st.integers(0, 300), max_size=5),
)
def test_well_formed_reports_survive_any_chunking(result, cuts):
    data = _framed(b'{"ready": {"seccomp": true}}') + _framed(json.dumps({"result": result}).encode())
    try:
        got = _consume(_chunks(data, cuts))
    except framing.FrameError:
        return  # e.g. a part or line of the wrong type
    assert got[0] == {"ready": {"seccomp": True}} and len(got) == 2
    _assert_well_formed(got[1])
