"""The app's secret key: it signs learner cookies, teacher sessions and device links.

Several workers (and hosts) must share one key, or a cookie signed by one is refused by the
next: `CODECLOZE_SECRET_KEY` is required there (app/settings.py refuses to start without it). A
single self-hosted process may leave it unset: a key is generated once and kept in
`<data dir>/secret_key` (mode 0600).
"""

import hashlib
import hmac
import os
import secrets
from pathlib import Path


def app_secret(secret_key: str | None, data_dir: Path) -> str:
    """The configured secret, else the one kept in the data dir (made on first start)."""
    if secret_key:
        return secret_key
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


def derived(secret: str, purpose: str) -> str:
    """A secret of its own for `purpose`, the same on every worker that shares `secret`."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()[:32]
