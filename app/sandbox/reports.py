"""What a job process may say on its result pipe, reduced to well-formed values or refused.

The learner's code runs in that process and can write anything to the pipe: a frame the
server cannot use is that job's "crashed" verdict (FrameError), never an error in the server.
Strings come back with lone surrogates replaced, since they cannot be encoded for the page.
"""

from .framing import FrameError

TEXT_CHARS = 4000
_RESULT_FIELDS = ("status", "message", "part", "line", "column")


def clean_text(value, limit: int = TEXT_CHARS) -> str:
    if not isinstance(value, str):
        raise FrameError("text field is not a string")
    value = value[:limit]
    if value.isascii():
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _flags(value) -> dict[str, bool]:
    if not isinstance(value, dict) or len(value) > 64:
        raise FrameError("flags are not a small object")
    if not all(isinstance(v, bool) for v in value.values()):
        raise FrameError("flag is not a boolean")
    return {clean_text(k, 64): v for k, v in value.items()}


def _line(value) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 31:
        raise FrameError("line is not a line number")
    return value


def _result(value) -> dict:
    if not isinstance(value, dict):
        raise FrameError("result is not an object")
    if set(value) == {"probe"}:
        return {"probe": _flags(value["probe"])}
    if not set(value) <= set(_RESULT_FIELDS):
        raise FrameError("unknown result field")
    part = value.get("part")
    return {
        "status": clean_text(value.get("status"), 16),
        "message": clean_text(value.get("message", "")),
        "part": None if part is None else clean_text(part, 64),
        "line": _line(value.get("line")),
        "column": _line(value.get("column")),
    }


def job_frame(frame, ready_seen: bool) -> dict:
    """{"ready": flags} first, then {"result": ...}; {"setup_error": text} at any point."""
    if not isinstance(frame, dict) or len(frame) != 1:
        raise FrameError("not a one-field object")
    ((key, value),) = frame.items()
    if key == "ready" and not ready_seen:
        return {"ready": _flags(value)}
    if key == "result" and ready_seen:
        return {"result": _result(value)}
    if key == "setup_error":
        return {"setup_error": clean_text(value)}
    raise FrameError(f"unexpected frame {clean_text(key, 32)!r}")
