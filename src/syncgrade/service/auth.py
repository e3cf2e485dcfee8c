"""Optional bearer-token authentication.

With a token set (:attr:`~syncgrade.service.config.ServiceConfig.auth_token`), every
request but the probes (``/healthz``, ``/readyz``) must carry
``Authorization: Bearer <token>``; otherwise the answer is 401 with a
``WWW-Authenticate: Bearer`` header and a JSON error. ``/metrics`` is protected too: it
tells how busy the service is and how learners fare (Prometheus sends the token with
``authorization: {credentials_file: ...}``). Tokens are compared in constant time.

The staff's token (:attr:`~syncgrade.service.config.ServiceConfig.staff_token`) is let in
too, and is what :func:`is_staff` looks for: only a request that carries it sees full
reports (every other one gets the learner's view, :mod:`syncgrade.platforms.visibility`).
"""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from syncgrade.service.guard import error

OPEN_PATHS = frozenset({"/healthz", "/readyz"})
REALM = 'Bearer realm="syncgrade"'


def authorization(scope: Scope) -> str | None:
    """The request's ``Authorization`` header, or None."""
    return next((v.decode("latin-1") for k, v in scope.get("headers", [])
                 if k.lower() == b"authorization"), None)


def carries(header: str | None, token: str | None) -> bool:
    """Whether ``header`` is ``Bearer <token>`` (constant time; False when no token)."""
    if token is None or not header:
        return False
    scheme, _, given = header.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode("utf-8"), token.encode("utf-8"))


def is_staff(scope: Scope, staff_token: str | None) -> bool:
    """Whether the request carries the staff's token (so may see full reports)."""
    return carries(authorization(scope), staff_token)


def auth_problem(header: str | None, *tokens: str) -> tuple[str, str]:
    """(message, WWW-Authenticate value) for a request whose ``Authorization`` header is
    ``header``; ("", "") when it carries one of ``tokens``."""
    if not header:
        return "this service needs Authorization: Bearer <token>", REALM
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return "the Authorization header must be 'Bearer <token>'", \
            f'{REALM}, error="invalid_request"'
    if not any([carries(header, token) for token in tokens]):  # a list: try every one
        return "the bearer token is not valid", f'{REALM}, error="invalid_token"'
    return "", ""


class BearerAuth:
    """ASGI middleware: 401 for an HTTP request off :data:`OPEN_PATHS` without one of
    ``tokens`` (the learners' token, and the staff's when there is one)."""

    def __init__(self, app: ASGIApp, tokens: tuple[str, ...]) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            message, challenge = auth_problem(authorization(scope), *self.tokens)
            if message:
                await error(401, message, {"WWW-Authenticate": challenge})(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)
