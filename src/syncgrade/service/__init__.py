"""The HTTP service behind ``grade serve``: the same engine and sandbox as the CLI, over HTTP.

Endpoints (OpenAPI at ``/openapi.json``, generated from the pydantic models)::

    POST /v1/grade       {"exercise", "source", "display_name"?, "timeout"?, "memory"?}
                         -> 200 GradeReport (the request waits for it)
    POST /v1/jobs        the same, and "callback_url"? -> 202 {"id", "status", "url"}
    GET  /v1/jobs/{id}   {"id", "status": queued|running|done|failed, "report"?, "error"?}
    GET  /v1/exercises   the catalogue (as `grade list --json`)
    GET  /v1/schema      the GradeReport JSON Schema (as `grade schema`)
    GET  /healthz        liveness, capacity and load (always open)
    GET  /readyz         200 once the warm pool filled and the self-test passed, else 503
    GET  /metrics        Prometheus metrics (:mod:`syncgrade.service.metrics`)

A service serves one course (``ServiceConfig.course``: ``grade serve --course DIR``,
else ``$SYNCGRADE_COURSE``, else the built-in course), opened when the app is made.

Contracts:

- Learner code never runs in this process: each grade is one :class:`GradeTask` run by
  the app's :class:`JobRunner` (default :class:`LocalJobRunner`: a call of
  :func:`syncgrade.grading.grade` on one of ``workers`` threads, which runs the
  submission in its own sandboxed child, in a child the service's own warm pool started
  ahead (``warm_pool``; ``grade serve`` keeps one per worker), else the process-wide
  pool (``SYNCGRADE_WARM_POOL``) or a cold child). A Dask-backed runner plugs in through
  ``create_app(config, runner=...)``.
- At most ``workers + queue`` grades (synchronous and jobs together) are admitted at
  once; the next request is answered 429 with ``Retry-After`` (seconds, estimated from
  recent grade times) at once, before any grading work. Bad requests never take a slot.
- Every admitted job ends ``done`` (with the report) or ``failed`` (with ``error``),
  shutdown included; its ``callback_url``, if any, then gets it as a POST.
- Every error is a JSON object ``{"error": "<one line>"}``: 400 body not UTF-8 or not
  JSON, 401 bearer token missing or wrong (with ``WWW-Authenticate``), 404 no such route
  or job, 405 wrong method, 413 body over ``max_body`` bytes, 415 body not
  ``application/json``, 422 a well-formed body with missing, unknown or ill-typed fields,
  a limit over the service's cap, a callback host not allowed, or an unknown exercise,
  429 queue full, 500 the service failed (an exercise whose rubric does not load
  included: ``"rubric error in exercise-N: ..."``). ``/readyz`` answers its own body,
  200 or 503.
- A grade always answers 200 with the report, including a grader fault
  (``status == "error"``, ``cause == "grader_fault"``): the report is the answer, and
  platforms read ``status`` as they do from the CLI and the Python API.
- Every answer carries ``X-Request-ID`` (the caller's, or a new one), and every log line
  is one JSON object (:mod:`syncgrade.service.logs`).
"""

from __future__ import annotations

from syncgrade.service.app import GRADE_PATH, JOBS_PATH, Service, create_app
from syncgrade.service.config import DEFAULT_MAX_BODY, ServiceConfig
from syncgrade.service.jobs import JobBody, JobState
from syncgrade.service.models import ErrorBody, GradeRequest, Health, JobAccepted, JobRequest
from syncgrade.service.ready import ReadyBody, SelfTest, choose_self_test
from syncgrade.service.runner import GradeTask, JobRunner, LocalJobRunner, RunnerFull

__all__ = [
    "DEFAULT_MAX_BODY", "GRADE_PATH", "JOBS_PATH", "ErrorBody", "GradeRequest", "GradeTask",
    "Health", "JobAccepted", "JobBody", "JobRequest", "JobRunner", "JobState",
    "LocalJobRunner", "ReadyBody", "RunnerFull", "SelfTest", "Service", "ServiceConfig",
    "choose_self_test", "create_app",
]
