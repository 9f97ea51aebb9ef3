"""The app's secret key: it signs learner cookies, teacher sessions and device links.

Several workers (and hosts) must share one key, or a cookie signed by one is refused by the
next: `CODECLOZE_SECRET_KEY` is required there. A single self-hosted process may leave it
unset: a key is generated once and kept in `<data dir>/secret_key` (mode 0600).
"""

import hashlib
import hmac
import multiprocessing
import os
import secrets
from pathlib import Path


class ConfigError(Exception):
    """A setting the operator must fix before the app can start; the message says how."""


def app_secret(secret_key: str | None, data_dir: Path) -> str:
    """The configured secret, else the one kept in the data dir (made on first start)."""
    if secret_key:
        return secret_key
    if several_workers():
        raise ConfigError(
            "several workers are starting without CODECLOZE_SECRET_KEY: each would sign learner cookies and "
            "teacher sessions with a key of its own, and a learner moving between workers would lose their "
            "id. Set the same CODECLOZE_SECRET_KEY (e.g. from `python -c 'import secrets; "
            "print(secrets.token_urlsafe(32))'`) on every worker and host."
        )
    path = data_dir / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it a moment ago: theirs wins
        return path.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(key)
    return key


def several_workers() -> bool:
    """Whether this process is one of several serving workers (uvicorn --workers, gunicorn,
    or WEB_CONCURRENCY, which both read)."""
    concurrency = os.environ.get("WEB_CONCURRENCY", "")
    return (
        multiprocessing.parent_process() is not None
        or "gunicorn" in os.environ.get("SERVER_SOFTWARE", "")
        or (concurrency.isdigit() and int(concurrency) > 1)
    )


def derived(secret: str, purpose: str) -> str:
    """A secret of its own for `purpose`, the same on every worker that shares `secret`."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()[:32]
