"""Running learners' code: a fork server with torch preloaded and one confined process per job.

Only the web-facing API is named here, and loaded on first use: the fork server imports its own
modules through this package and has no use for the client's asyncio. A lower layer: imports
nothing of the app outside app.sandbox.
"""

import importlib

_WHERE = {
    "Sandbox": ".client",
    **dict.fromkeys(("Job", "Limits", "SandboxBusy", "SandboxUnavailable", "Verdict"), ".types"),
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name], __name__), name)
