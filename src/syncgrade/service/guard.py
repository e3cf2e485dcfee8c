"""Refusing bad requests cheaply and clearly: the body guard, the JSON error shape and
the one-line messages of validation errors.

Every error the service answers is one JSON object ``{"error": "<one line>"}``."""

from __future__ import annotations

import json
from email.message import Message
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The service's one error shape: ``{"error": message}`` with ``status``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


DISCARD_LIMIT = 64 << 20
"""An oversized body is read (and dropped) up to this many bytes before the 413, so that
every client, one that sends its whole body before reading included, gets the answer; a
body declared or sent past it is refused without reading on (its client may see the
connection reset)."""


class BodyGuard:
    """ASGI middleware that reads a JSON route's body itself, so that it can refuse it
    cheaply and clearly: 415 before reading a non-JSON body, 413 for a body over the
    limit (unread when its client asked for ``100-continue``, else read to its end and
    dropped, up to :data:`DISCARD_LIMIT`; only the first ``max_body`` bytes are kept),
    400 for bytes that are not UTF-8 or not JSON. What passes is replayed to the app
    unchanged. ``json_paths``: the routes whose body must be JSON."""

    def __init__(self, app: ASGIApp, max_body: int, json_paths: frozenset[str]) -> None:
        self.app = app
        self.max_body = max_body
        self.json_paths = json_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        is_json = scope["path"] in self.json_paths
        problem = _content_type_problem(headers.get("content-type")) if is_json else ""
        if problem:
            await error(415, problem)(scope, receive, send)
            return
        too_big = error(413, f"the request body is larger than the limit of "
                             f"{self.max_body} bytes")
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body and (
                "100-continue" in headers.get("expect", "").lower()
                or int(declared) > DISCARD_LIMIT):
            # The client waits for "100 Continue" before it sends (or the body is past
            # what is worth reading): refuse it unread.
            await too_big(scope, receive, send)
            return
        body = bytearray()
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen <= self.max_body:
                body += chunk
            if not message.get("more_body", False) or seen > DISCARD_LIMIT:
                break
        if seen > self.max_body:
            # Read to its end (up to DISCARD_LIMIT) before answering: a server that closes
            # on unread bytes resets the connection, and a client still sending, such as
            # Python's urllib, then never sees the 413.
            await too_big(scope, receive, send)
            return
        problem = _json_problem(bytes(body)) if is_json else ""
        if problem:
            await error(400, problem)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _content_type_problem(value: str | None) -> str:
    if not value:
        return "send the body as JSON with Content-Type: application/json"
    message = Message()
    message["content-type"] = value
    subtype = message.get_content_subtype()
    if message.get_content_maintype() != "application" or not (
            subtype == "json" or subtype.endswith("+json")):
        return f"the body must be JSON (Content-Type: application/json), not {value!r}"
    charset = message.get_param("charset")
    if isinstance(charset, str) and charset.lower().replace("_", "-") not in ("utf-8", "utf8"):
        return f"the body must be UTF-8 JSON, not charset={charset}"
    return ""


def _json_problem(body: bytes) -> str:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the request body is not valid UTF-8 (byte {exc.start})"
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return (f"the request body is not valid JSON: {exc.msg} at line {exc.lineno} "
                f"column {exc.colno}")
    return ""


def validation_message(exc: RequestValidationError) -> str:
    """The first problem of a body that is JSON but not a grade request, in one line."""
    for problem in exc.errors():
        loc = [str(p) for p in problem.get("loc", ()) if p != "body"]
        field = ".".join(loc)
        kind = problem.get("type", "")
        if kind == "missing":
            return f"missing field {field!r}"
        if kind == "extra_forbidden":
            return f"unknown field {field!r}"
        if not field:
            return ('the body must be a JSON object like {"exercise": "exercise-1", '
                    '"source": "..."}')
        return f"field {field!r}: {problem.get('msg', 'invalid')}"
    return "the request body is not a valid grade request"


def add_error_handlers(app: FastAPI) -> None:
    """Every error as one JSON body (``{"error": ...}``), never FastAPI's own shapes."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            detail = f"no such endpoint: {request.method} {request.url.path}"
        elif exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return error(exc.status_code, detail, getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error(422, validation_message(exc))
