"""Structured logs and request ids.

Every request gets an id: the caller's ``X-Request-ID`` when it is a sane one (1-128
characters of letters, digits and ``._:-``), else a fresh one (32 hex digits). It is
echoed in the response's ``X-Request-ID`` header and carried by every log line written
while the request is handled (a context variable), by the grade's lines (from its task)
and by a job's callback.

The service logs to the ``syncgrade.service`` logger; :class:`JsonFormatter` writes each
record as one JSON object per line (``grade serve`` installs it for uvicorn's loggers
too, :func:`log_config`): ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``event`` (the
message) and the record's fields, e.g. ``request_id``, ``method``, ``path``, ``status``,
``ms`` for a request.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Collection
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOGGER = logging.getLogger("syncgrade.service")
HEADER = "X-Request-ID"
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
REQUEST_ID: ContextVar[str] = ContextVar("syncgrade_request_id", default="")
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message",
                                                                          "asctime"}


def request_id_for(given: str | None) -> str:
    """``given`` when it is a sane request id, else a fresh one."""
    if given is not None and _SANE_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


def log(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``event`` with ``fields`` (JSON values) to the service's logger."""
    LOGGER.log(level, event, extra={"fields": fields})


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (see the module doc)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(), "logger": record.name,
            "event": record.getMessage()}
        request_id = REQUEST_ID.get()
        if request_id:
            entry["request_id"] = request_id
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        entry.update({k: v for k, v in vars(record).items()
                      if k not in _STANDARD and k not in ("fields", "color_message")})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def _dask_loggers() -> list[str]:
    """The loggers of Dask and its libraries that hold handlers now."""
    return [name for name, made in logging.root.manager.loggerDict.items()
            if name.split(".")[0] in ("distributed", "tornado", "bokeh")
            and isinstance(made, logging.Logger) and made.handlers]


def log_config(level: str = "INFO") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` (uvicorn's ``log_config``) that writes the
    service's, uvicorn's and Dask's records as JSON lines to stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json",
               "stream": "ext://sys.stderr"}
    loggers = {name: {"handlers": ["json"], "level": level, "propagate": False}
               for name in ("syncgrade.service", "uvicorn", "uvicorn.error")}
    # Dask (grade serve --cluster) installs plain-text handlers of its own on import, on
    # several loggers: these replace them, keeping Dask's levels.
    loggers.update({name: {"handlers": ["json"], "propagate": False}
                    for name in ("distributed", "tornado", "bokeh", *_dask_loggers())})
    loggers["uvicorn.access"] = {"handlers": [], "level": "WARNING", "propagate": False}
    return {"version": 1, "disable_existing_loggers": False,
            "formatters": {"json": {"()": JsonFormatter}},
            "handlers": {"json": handler}, "loggers": loggers}


Observer = Callable[[str, str, int, float], None]
"""Called once per HTTP request with its method, route, status and seconds."""


def route_of(scope: Scope, known: Collection[str]) -> str:
    """The route a request matched (its template, e.g. ``/v1/jobs/{job_id}``), else its
    path when that is one of ``known``, else ``other``: a bounded set of metric labels,
    whatever paths clients try."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if isinstance(template, str):
        return template
    return scope["path"] if scope["path"] in known else "other"


class RequestContext:
    """ASGI middleware: gives each HTTP request its id (in :data:`REQUEST_ID` and the
    response header), logs one ``request`` line when the answer has been sent, and hands
    ``observe`` (if any) the request's method, route (:func:`route_of`, ``known``: the
    app's paths), status and seconds, e.g. for ``/metrics``."""

    def __init__(self, app: ASGIApp, observe: Observer | None = None,
                 known: Collection[str] = ()) -> None:
        self.app = app
        self.observe = observe
        self.known = frozenset(known)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v.decode("latin-1") for k, v in scope.get("headers", [])
                      if k.lower() == b"x-request-id"), None)
        request_id = request_id_for(given)
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"x-request-id", request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            client = scope.get("client")
            seconds = time.perf_counter() - started
            log("request", method=scope["method"], path=scope["path"], status=status,
                ms=round(seconds * 1000, 1), client=client[0] if client else None)
            if self.observe is not None:
                self.observe(scope["method"], route_of(scope, self.known), status, seconds)
            REQUEST_ID.reset(token)
