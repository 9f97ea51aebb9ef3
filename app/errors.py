"""Errors a user caused and can fix: a message written for them, and what kind of problem it is.

Use cases raise these without knowing HTTP; the web layer maps each kind to its status
(app/web/errors.py). Every layer may import this module: it imports nothing of the app.
"""


class UserError(Exception):
    """The request cannot be done as asked (by default: its content is invalid)."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field  # the form field at fault, where one is: a refused form shows it there


class Malformed(UserError):
    """The request itself is not well formed (a bad header, a body that is no form)."""


class Unauthorized(UserError):
    """Who is asking is unknown: log in first."""


class Forbidden(UserError):
    """Who is asking may not do this."""


class NotFound(UserError):
    """What was asked for does not exist (or is not the asker's to see)."""


class Conflict(UserError):
    """The thing exists in another state than the request expects."""


class TooLarge(UserError):
    """The body is larger than allowed."""


class Unsupported(UserError):
    """The body is of a type that is not taken here."""


class TooMany(UserError):
    """Too many tries: wait before the next one."""


class Busy(UserError):
    """Not now: the server is busy or something it needs is down; retrying later will do."""

    def __init__(self, message: str, retry_after: int = 2):
        super().__init__(message)
        self.retry_after = retry_after  # seconds
