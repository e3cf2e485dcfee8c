"""The HTTP service behind ``grade serve``: the same engine and sandbox as the CLI, over HTTP.

Endpoints (OpenAPI at ``/openapi.json``, generated from the pydantic models)::

    POST /v1/grade       {"exercise", "source", "display_name"?} -> GradeReport
    GET  /v1/exercises   the catalogue (as `grade list --json`)
    GET  /v1/schema      the GradeReport JSON Schema (as `grade schema`)
    GET  /healthz        liveness, capacity and load

A service serves one course (``ServiceConfig.course``: ``grade serve --course DIR``,
else ``$SYNCGRADE_COURSE``, else the built-in course), opened when the app is made.

Contracts:

- Learner code never runs in this process: each grade is one call of
  :func:`syncgrade.grading.grade`, which runs the submission in its own sandboxed child,
  on a worker thread (``workers`` of them), in a child the service's own warm pool
  started ahead (``warm_pool``; ``grade serve`` keeps one per worker), else the
  process-wide pool (``SYNCGRADE_WARM_POOL``) or a cold child.
- At most ``workers + queue`` grade requests are admitted at once; the next one is
  answered 429 with ``Retry-After`` (seconds, estimated from recent grade times) at
  once, before any grading work. Bad requests never take a slot.
- Every error is a JSON object ``{"error": "<one line>"}``: 400 body not UTF-8 or not
  JSON, 404 no such route, 405 wrong method, 413 body over ``max_body`` bytes, 415 body
  not ``application/json``, 422 a well-formed body with missing, unknown or ill-typed
  fields or an unknown exercise, 429 queue full, 500 the service failed (an exercise
  whose rubric does not load included: ``"rubric error in exercise-N: ..."``).
- A grade always answers 200 with the report, including a grader fault
  (``status == "error"``, ``cause == "grader_fault"``): the report is the answer, and
  platforms read ``status`` as they do from the CLI and the Python API.
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.message import Message
from functools import partial
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

import syncgrade
from syncgrade import grading
from syncgrade.courses import Course
from syncgrade.limits import (
    DEFAULT_MEMORY_GIB,
    DEFAULT_TIMEOUT_S,
    GIB,
    check_memory_bytes,
    check_timeout,
)
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.pool import WarmPool
from syncgrade.schema import Catalogue, catalogue, report_schema

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a submission is a few KiB; PrairieLearn caps results at 1 MB
GRADE_PATH = "/v1/grade"
_JSON_BODY_PATHS = frozenset({GRADE_PATH})


@dataclass(frozen=True)
class ServiceConfig:
    """Limits of one service process. ``workers`` grades run at once, ``queue`` more wait;
    ``timeout`` and ``memory_bytes`` are each learner child's limits, as on the CLI, and
    checked as there (:mod:`syncgrade.limits`): a bad one raises ``ValueError``."""

    workers: int = 2
    queue: int = 8
    max_body: int = DEFAULT_MAX_BODY
    timeout: float = DEFAULT_TIMEOUT_S
    memory_bytes: int = int(DEFAULT_MEMORY_GIB * GIB)
    warm_pool: int = 0
    """Children the service keeps pre-started (jax imported, no learner code, one
    submission each; see :mod:`syncgrade.pool`). 0: the process-wide pool when
    ``SYNCGRADE_WARM_POOL`` is set, else a cold child per grade. ``grade serve`` passes
    its ``--warm-pool`` (default: ``workers``)."""
    course: str | None = None
    """The course served: a folder or an installed course's name (default:
    ``$SYNCGRADE_COURSE``, else the built-in course); :func:`create_app` opens it."""

    def __post_init__(self) -> None:
        if (self.workers < 1 or self.queue < 0 or self.max_body < 1
                or self.warm_pool < 0):
            raise ValueError("workers >= 1, queue >= 0, max_body >= 1 and warm_pool >= 0")
        check_timeout(self.timeout)
        check_memory_bytes(self.memory_bytes)


class GradeRequest(BaseModel):
    """One submission to grade. Unknown fields are rejected, so a misspelt field is an
    error rather than silently ignored."""

    model_config = ConfigDict(extra="forbid")

    exercise: str = Field(description="exercise id, e.g. exercise-1 (see GET /v1/exercises)",
                          examples=["exercise-1"])
    source: str = Field(description="the learner's Python source text")
    display_name: str | None = Field(
        None, max_length=255, description="the name learners see in the report (default "
        "submission.py); never pass a platform's own path")


class ErrorBody(BaseModel):
    error: str = Field(description="what was wrong, in one line")


class Health(BaseModel):
    status: str = "ok"
    syncgrade_version: str
    report_schema_version: str
    workers: int
    queue: int
    running: int = Field(description="grades running now")
    queued: int = Field(description="admitted grade requests waiting for a worker")
    warm_pool: int = Field(0, description="children kept pre-started (0: none of its own)")
    served_warm: int = Field(0, description="child runs served by a pre-started child")
    zygote: str = Field("off", description="whether the warm children are forked from a "
                        "zygote that imported jax once: 'off', 'on', or 'failed: why' "
                        "(then each starts as a fresh interpreter)")
    course: str = Field("", description="the title of the course this service grades")


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class _Load:
    """Admission control and load figures. ``admitted`` is only touched on the event loop;
    ``running`` and the recent durations are updated from worker threads, under a lock."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.admitted = 0
        self._lock = threading.Lock()
        self._running = 0
        self._durations: deque[float] = deque(maxlen=20)

    @property
    def running(self) -> int:
        with self._lock:
            return self._running

    def try_admit(self) -> bool:
        if self.admitted >= self.config.workers + self.config.queue:
            return False
        self.admitted += 1
        return True

    def release(self) -> None:
        self.admitted -= 1

    def retry_after_s(self) -> int:
        """Seconds until a slot is likely free: the median recent grade time times the
        rounds of work ahead (a guess before any grade has finished)."""
        with self._lock:
            typical = statistics.median(self._durations) if self._durations else 5.0
        rounds = max(1, math.ceil((self.admitted - self.config.workers + 1)
                                  / self.config.workers))
        return max(1, math.ceil(typical * rounds))

    def timed(self, fn: Callable[[], GradeReport]) -> GradeReport:
        with self._lock:
            self._running += 1
        started = time.perf_counter()
        try:
            return fn()
        finally:
            with self._lock:
                self._running -= 1
                self._durations.append(time.perf_counter() - started)


class _BodyGuard:
    """ASGI middleware that reads a JSON route's body itself, so that it can refuse it
    cheaply and clearly: 415 before reading a non-JSON body, 413 before reading (by
    Content-Length) or as soon as it grows past the limit, 400 for bytes that are not UTF-8
    or not JSON. What passes is replayed to the app unchanged."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        if scope["path"] in _JSON_BODY_PATHS:
            problem = _content_type_problem(headers.get("content-type"))
            if problem:
                await _error(415, problem)(scope, receive, send)
                return
        too_big = _error(413, f"the request body is larger than the limit of "
                              f"{self.max_body} bytes")
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            await too_big(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        if scope["path"] in _JSON_BODY_PATHS:
            problem = _json_problem(bytes(body))
            if problem:
                await _error(400, problem)(scope, receive, send)
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


def _validation_message(exc: RequestValidationError) -> str:
    """The first problem of a body that is JSON but not a GradeRequest, in one line."""
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ()) if p != "body"]
        field = ".".join(loc)
        kind = error.get("type", "")
        if kind == "missing":
            return f"missing field {field!r}"
        if kind == "extra_forbidden":
            return f"unknown field {field!r}"
        if not field:
            return ('the body must be a JSON object like {"exercise": "exercise-1", '
                    '"source": "..."}')
        return f"field {field!r}: {error.get('msg', 'invalid')}"
    return "the request body is not a valid grade request"


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "the body is not UTF-8 or not JSON"},
    413: {"model": ErrorBody, "description": "the body is larger than the limit"},
    415: {"model": ErrorBody, "description": "the body is not application/json"},
    422: {"model": ErrorBody, "description": "missing, unknown or ill-typed fields, or an "
                                             "unknown exercise"},
    429: {"model": ErrorBody, "description": "too many grades running and queued; retry "
                                             "after the Retry-After header's seconds"},
    500: {"model": ErrorBody, "description": "the service itself failed"},
}


def create_app(config: ServiceConfig | None = None) -> FastAPI:
    """The FastAPI application for ``config`` (defaults: :class:`ServiceConfig`).
    Raises :class:`~syncgrade.courses.CourseError` when its course cannot be opened."""
    from syncgrade.courses import open_course

    config = config or ServiceConfig()
    course = open_course(config.course)
    load = _Load(config)
    executor = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="grade")

    pools: list[WarmPool] = []  # the service's own warm pool, while it runs

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config.warm_pool:
            pools.append(WarmPool(config.warm_pool, timeout=config.timeout,
                                  memory_bytes=config.memory_bytes,
                                  hidden=course.hidden_paths))
        yield
        # Running grades finish (their children are bounded by the timeout); queued ones
        # that have not started are dropped.
        executor.shutdown(wait=True, cancel_futures=True)
        for pool in pools:
            pool.close()

    app = FastAPI(
        title="syncgrade",
        version=syncgrade.__version__,
        description="Grade learners' JAX benchmarking code by what their timers really "
                    f"measured. Reports follow GradeReport schema_version {SCHEMA_VERSION}.",
        lifespan=lifespan,
    )
    app.add_middleware(_BodyGuard, max_body=config.max_body)
    _add_error_handlers(app)
    _add_grade_route(app, config, course, load, executor, pools)
    _add_info_routes(app, config, course, load, pools)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    """Every error as one JSON body (``{"error": ...}``), never FastAPI's own shapes."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            detail = f"no such endpoint: {request.method} {request.url.path}"
        elif exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return _error(exc.status_code, detail, getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, _validation_message(exc))


def _add_grade_route(app: FastAPI, config: ServiceConfig, course: Course, load: _Load,
                     executor: ThreadPoolExecutor, pools: list[WarmPool]) -> None:
    """``POST /v1/grade``: admission (429 when full), then the grade on ``executor``."""

    @app.post(GRADE_PATH, response_model=GradeReport, responses=ERROR_RESPONSES,
              summary="Grade one submission")
    async def grade(body: GradeRequest) -> Any:
        """Grade ``source`` for ``exercise`` in a sandboxed child process. 200 with the
        report whatever the verdict, a grader fault (``status: error``) included."""
        from syncgrade.rubric import RubricError, UnknownExercise

        try:
            course.get(body.exercise)
        except UnknownExercise:
            return _error(422, f"unknown exercise {body.exercise!r} (known: "
                               f"{', '.join(course.exercises)}); see GET /v1/exercises")
        except RubricError as exc:  # the exercise's rubric does not load: the service's fault
            return _error(500, str(exc))
        if not load.try_admit():
            return _error(429, f"busy: {config.workers} grade(s) running and {config.queue} "
                               "waiting; retry later",
                          {"Retry-After": str(load.retry_after_s())})
        try:
            job = partial(grading.grade, body.exercise, source=body.source,
                          display_name=body.display_name or "submission.py",
                          timeout=config.timeout, memory_bytes=config.memory_bytes,
                          pool=pools[0] if pools else None, course=course)
            run: Callable[[], GradeReport] = partial(load.timed, job)
            pending: Awaitable[GradeReport] = asyncio.get_running_loop().run_in_executor(
                executor, run)
            return await pending
        except ValueError as exc:  # SubmissionError, or a limit grading.grade refused
            return _error(422, str(exc))
        except Exception as exc:  # the service's own fault; the report path never raises
            return _error(500, f"internal error: {type(exc).__name__}: {exc}")
        finally:
            load.release()


def _add_info_routes(app: FastAPI, config: ServiceConfig, course: Course, load: _Load,
                     pools: list[WarmPool]) -> None:
    """The read-only endpoints: the catalogue, the report schema and ``/healthz``."""

    @app.get("/v1/exercises", response_model=Catalogue, summary="The exercise catalogue")
    async def exercises() -> Catalogue:
        """Every exercise with its rubric version, maximum score and checks (as
        ``grade list --json``)."""
        return catalogue(course)

    @app.get("/v1/schema", summary="The GradeReport JSON Schema")
    async def schema() -> dict[str, Any]:
        """The JSON Schema of the reports this service returns (as ``grade schema``)."""
        return report_schema()

    @app.get("/healthz", response_model=Health, summary="Liveness and load")
    async def healthz() -> Health:
        running = load.running
        return Health(syncgrade_version=syncgrade.__version__,
                      report_schema_version=SCHEMA_VERSION, workers=config.workers,
                      queue=config.queue, running=running,
                      queued=max(0, load.admitted - running),
                      warm_pool=config.warm_pool,
                      served_warm=pools[0].stats.warm if pools else 0,
                      zygote=pools[0].stats.zygote if pools else "off",
                      course=course.title)
