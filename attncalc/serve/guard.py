"""The guards around every request of ``attncalc serve``: security headers on each response, and a
body over the limit refused (413) by its Content-Length before the app reads it (a body without one
is counted as it streams, by the route that reads it)."""

from __future__ import annotations

from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class Guard:
    """Security headers on every response; a body over the limit refused (413) before it is read."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        headers = dict(scope.get("headers", []))
        value = headers.get(b"content-length")
        if value is not None and (not value.isdigit() or int(value) > self.max_body):
            as_json = headers.get(b"content-type", b"").split(b";")[0].strip().lower() == b"application/json"
            await too_large(self.max_body, as_json)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def too_large(limit: int, as_json: bool = False) -> Response:
    """413, as text, or as JSON's {"error": ...} to a JSON request (as its other errors are)."""
    message = f"The answers are over the limit of {limit} bytes."
    if as_json:
        return JSONResponse({"error": message}, status_code=413)
    return PlainTextResponse(message + "\n", status_code=413)
