"""Errors a user caused and can fix: a status and a message written for them."""


class UserError(Exception):
    def __init__(self, status: int, message: str, *, detail: list[str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.detail = detail or []
