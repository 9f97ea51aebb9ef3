"""Counts and times every HTTP request by the route it matched, never by its raw path.

Labelling by route template (`/s/{snippet_id}/drill`) keeps the number of series bounded
whatever paths clients make up: a path no route matches is `unmatched`.
"""

from time import perf_counter

UNMATCHED = "unmatched"


def route_of(scope) -> str:
    """The template of the route the router chose (it records it in the scope)."""
    route = scope.get("route")
    return getattr(route, "path", None) or UNMATCHED


class RequestMetrics:
    def __init__(self, app, metrics):
        self.app, self.metrics = app, metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = 500  # what the server answers when the app raises before it starts a response
        begun = perf_counter()

        async def sent(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sent)
        finally:
            self.metrics.request(scope["method"], route_of(scope), status, perf_counter() - begun)
