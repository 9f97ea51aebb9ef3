"""Running learners' code: a fork server with torch preloaded and one confined process per job.

Only the web-facing API is imported here; the server side loads its modules itself. A lower layer:
imports nothing of the app outside app.sandbox.
"""

from .client import Sandbox
from .types import Job, Limits, SandboxBusy, SandboxUnavailable, Verdict

__all__ = ["Job", "Limits", "Sandbox", "SandboxBusy", "SandboxUnavailable", "Verdict"]
