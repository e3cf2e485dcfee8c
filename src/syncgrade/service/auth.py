"""Optional bearer-token authentication.

With a token set (:attr:`~syncgrade.service.config.ServiceConfig.auth_token`), every
request but the probes (``/healthz``, ``/readyz``) must carry
``Authorization: Bearer <token>``; otherwise the answer is 401 with a
``WWW-Authenticate: Bearer`` header and a JSON error. ``/metrics`` is protected too: it
tells how busy the service is and how learners fare (Prometheus sends the token with
``authorization: {credentials_file: ...}``). Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from syncgrade.service.guard import error

OPEN_PATHS = frozenset({"/healthz", "/readyz"})
REALM = 'Bearer realm="syncgrade"'


def auth_problem(header: str | None, token: str) -> tuple[str, str]:
    """(message, WWW-Authenticate value) for a request whose ``Authorization`` header is
    ``header``; ("", "") when it carries ``token``."""
    if not header:
        return "this service needs Authorization: Bearer <token>", REALM
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return "the Authorization header must be 'Bearer <token>'", \
            f'{REALM}, error="invalid_request"'
    if not hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8")):
        return "the bearer token is not valid", f'{REALM}, error="invalid_token"'
    return "", ""


class BearerAuth:
    """ASGI middleware: 401 for an HTTP request off :data:`OPEN_PATHS` without the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            header = next((v.decode("latin-1") for k, v in scope.get("headers", [])
                           if k.lower() == b"authorization"), None)
            message, challenge = auth_problem(header, self.token)
            if message:
                await error(401, message, {"WWW-Authenticate": challenge})(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)
