"""The HTTP status of each kind of user error (app/errors.py)."""

from app import errors

STATUS: dict[type, int] = {
    errors.Malformed: 400,
    errors.Unauthorized: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.TooLarge: 413,
    errors.Unsupported: 415,
    errors.TooMany: 429,
    errors.Busy: 503,
}


def status_of(error: errors.UserError) -> int:
    """The status of the nearest kind `error` is (422 for a plain invalid request)."""
    return next((STATUS[kind] for kind in type(error).__mro__ if kind in STATUS), 422)
