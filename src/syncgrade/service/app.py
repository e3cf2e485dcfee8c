"""The FastAPI application: :func:`create_app` and its routes (see the package doc)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response

import syncgrade
from syncgrade import grading
from syncgrade.courses import Course
from syncgrade.limits import GIB
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.platforms.common import clean_name
from syncgrade.pool import WarmPool
from syncgrade.schema import Catalogue, catalogue, report_schema
from syncgrade.service.auth import BearerAuth
from syncgrade.service.config import ServiceConfig
from syncgrade.service.guard import BodyGuard, add_error_handlers, error
from syncgrade.service.jobs import Job, JobBody, JobStore, callback_problem, post_callback
from syncgrade.service.logs import REQUEST_ID, RequestContext, log
from syncgrade.service.metrics import CONTENT_TYPE, ServiceMetrics
from syncgrade.service.models import (
    ErrorBody,
    GradeRequest,
    Health,
    JobAccepted,
    JobRequest,
    request_limits,
)
from syncgrade.service.ready import Readiness, ReadyBody, SelfTest, choose_self_test
from syncgrade.service.runner import GradeTask, JobRunner, LocalJobRunner, RunnerFull

GRADE_PATH = "/v1/grade"
JOBS_PATH = "/v1/jobs"

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "the body is not UTF-8 or not JSON"},
    401: {"model": ErrorBody, "description": "a bearer token is required and missing or "
                                             "wrong"},
    413: {"model": ErrorBody, "description": "the body is larger than the limit"},
    415: {"model": ErrorBody, "description": "the body is not application/json"},
    422: {"model": ErrorBody, "description": "missing, unknown or ill-typed fields, a limit "
                                             "over the service's cap, or an unknown exercise"},
    429: {"model": ErrorBody, "description": "too many grades running and queued; retry "
                                             "after the Retry-After header's seconds"},
    500: {"model": ErrorBody, "description": "the service itself failed"},
}


class Service:
    """One app's state: its course, runner, jobs, metrics, readiness and warm pool.

    Every grade, synchronous or a job, goes through :meth:`submit`, so admission, the
    metrics and the logs are the same for both, whichever runner runs it."""

    def __init__(self, config: ServiceConfig, course: Course, runner: JobRunner | None,
                 grade: Callable[[GradeTask], GradeReport] | None = None) -> None:
        self.config = config
        self.course = course
        self.pool: WarmPool | None = None
        # Where one grade runs: here (the warm pool), or elsewhere (e.g. a Dask cluster,
        # syncgrade.cluster); the self-test goes the same way as a learner's grade.
        self.grade_one = grade or self.grade_task
        self.runner = runner or LocalJobRunner(self.grade_one, config.workers, config.queue)
        self.jobs = JobStore(config.max_jobs)
        self.readiness = Readiness(choose_self_test(course) if config.self_test else None)
        self.metrics = ServiceMetrics(lambda: self.runner, lambda: self.pool,
                                      self.readiness.ready)
        self.callbacks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="callback")
        self._callbacks_lock = threading.Lock()

    # ---------------------------------------------------------------- grading

    def grade_task(self, task: GradeTask) -> GradeReport:
        """One grade in this process (the local runner's work)."""
        return grading.grade(task.exercise, source=task.source,
                             display_name=task.display_name, timeout=task.timeout,
                             memory_bytes=task.memory_bytes, pool=self.pool,
                             course=self.course)

    def grade_self_test(self, test: SelfTest) -> GradeReport:
        return self.grade_one(GradeTask(
            exercise=test.exercise, source=test.source, display_name=test.name,
            timeout=self.config.timeout, memory_bytes=self.config.memory_bytes,
            request_id="self-test"))

    def submit(self, task: GradeTask, job: Job | None = None) -> Future[GradeReport]:
        """Hand ``task`` to the runner (raises :class:`RunnerFull`, counted); its end is
        logged, counted and, for a job, recorded and called back."""
        try:
            future = self.runner.submit(
                task, on_start=partial(self.jobs.start, job) if job else None)
        except RunnerFull:
            self.metrics.rejected.labels(reason="busy").inc()
            raise
        future.add_done_callback(partial(self._finished, task, job))
        return future

    def _finished(self, task: GradeTask, job: Job | None,
                  future: Future[GradeReport]) -> None:
        """A task's future resolved: record its job first (so that no job is left
        unfinished whatever follows), then count, log and call back."""
        report: GradeReport | None = None
        problem: str | None = None
        usage = False  # a usage error (a 422) is the caller's, not the service's fault
        if future.cancelled():
            problem = "the service stopped before the grade started"
        elif (exc := future.exception()) is not None:
            usage = isinstance(exc, ValueError)
            problem = str(exc) if usage else f"internal error: {type(exc).__name__}: {exc}"
        else:
            report = future.result()
        body = self.jobs.finish(job, report, problem) if job is not None else None
        if report is not None:
            self.metrics.graded(report, report.grading.seconds)
            log("grade", request_id=task.request_id, job=job.id if job else None,
                exercise=task.exercise, status=report.status, cause=report.cause,
                score=report.score, max_score=report.max_score,
                seconds=round(report.grading.seconds, 3))
        else:
            if not usage:
                self.metrics.faults.inc()
            log("grade failed", 30 if usage else 40, request_id=task.request_id,
                job=job.id if job else None, exercise=task.exercise, error=problem)
        if job is not None and body is not None:
            self.metrics.jobs.labels(status=body.status).inc()
            if job.callback_url:
                self._call_back(job, body)

    def _call_back(self, job: Job, body: JobBody) -> None:
        url = job.callback_url
        assert url is not None

        def deliver() -> None:
            problem = post_callback(url, body, job.request_id, self.config.callback_timeout)
            self.metrics.callbacks.labels(outcome="failed" if problem else "delivered").inc()
            log("callback", 30 if problem else 20, request_id=job.request_id, job=job.id,
                url=url, delivered=not problem, **({"error": problem} if problem else {}))

        with self._callbacks_lock:
            try:
                self.callbacks.submit(deliver)
            except RuntimeError:  # shutting down: deliver it here rather than drop it
                deliver()

    def task_for(self, body: GradeRequest) -> GradeTask | JSONResponse:
        """The task for a valid request, or the JSON error for an invalid one (unknown
        exercise or bad limits 422, a rubric that does not load 500)."""
        from syncgrade.rubric import RubricError, UnknownExercise

        try:
            self.course.get(body.exercise)
        except UnknownExercise:
            return error(422, f"unknown exercise {body.exercise!r} (known: "
                              f"{', '.join(self.course.exercises)}); see GET /v1/exercises")
        except RubricError as exc:  # the exercise's rubric does not load: the service's
            return error(500, str(exc))
        limits = request_limits(body, self.config)
        if isinstance(limits, str):
            return error(422, limits)
        # The name is the caller's text, shown to learners: one clean line, as the
        # container entry points make it (platforms.common.clean_name).
        name = clean_name(body.display_name) if body.display_name else "submission.py"
        return GradeTask(body.exercise, body.source, name, limits[0], limits[1],
                         REQUEST_ID.get())

    # ---------------------------------------------------------------- life cycle

    def start(self) -> None:
        if self.config.warm_pool:
            self.pool = WarmPool(self.config.warm_pool, timeout=self.config.timeout_cap,
                                 memory_bytes=self.config.memory_bytes,
                                 hidden=self.course.hidden_paths)
        self.readiness.start(self.pool, self.grade_self_test)

    def stop(self) -> None:
        """Not ready; running grades finish, queued ones are cancelled (their jobs end
        ``failed`` and are called back); then the callbacks and the pool end."""
        self.readiness.stop()
        self.runner.close()
        with self._callbacks_lock:
            self.callbacks.shutdown(wait=True)
        if self.pool is not None:
            self.pool.close()


def create_app(config: ServiceConfig | None = None, *,
               runner: JobRunner | None = None,
               grade: Callable[[GradeTask], GradeReport] | None = None) -> FastAPI:
    """The FastAPI application for ``config`` (defaults: :class:`ServiceConfig`).
    ``runner``: where grades run (default: a :class:`LocalJobRunner` of ``workers``
    threads and a queue of ``queue``). ``grade``: how one task is graded by the default
    runner and the self-test (default: here, in this service's warm pool; see
    :func:`syncgrade.service.runner.cluster_grade` for a Dask cluster). Raises
    :class:`~syncgrade.courses.CourseError` when its course cannot be opened."""
    from syncgrade.courses import open_course

    config = config or ServiceConfig()
    service = Service(config, open_course(config.course), runner, grade)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        yield
        await asyncio.get_running_loop().run_in_executor(None, service.stop)

    app = FastAPI(
        title="syncgrade",
        version=syncgrade.__version__,
        description="Grade learners' JAX benchmarking code by what their timers really "
                    f"measured. Reports follow GradeReport schema_version {SCHEMA_VERSION}.",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(BodyGuard, max_body=config.max_body,
                       json_paths=frozenset({GRADE_PATH, JOBS_PATH}))
    if config.auth_token is not None:
        app.add_middleware(BearerAuth, token=config.auth_token)
    app.add_middleware(RequestContext)  # outermost: every answer has its request id
    add_error_handlers(app)
    _add_grade_routes(app, service)
    _add_info_routes(app, service)
    return app


def _busy(exc: RunnerFull) -> JSONResponse:
    return error(429, str(exc), {"Retry-After": str(exc.retry_after_s)})


def _add_grade_routes(app: FastAPI, service: Service) -> None:
    """``POST /v1/grade`` (wait for the report), ``POST /v1/jobs``, ``GET /v1/jobs/{id}``."""

    @app.post(GRADE_PATH, response_model=GradeReport, responses=ERROR_RESPONSES,
              summary="Grade one submission")
    async def grade(body: GradeRequest) -> Any:
        """Grade ``source`` for ``exercise`` in a sandboxed child process. 200 with the
        report whatever the verdict, a grader fault (``status: error``) included."""
        task = service.task_for(body)
        if isinstance(task, JSONResponse):
            return task
        try:
            future = service.submit(task)
        except RunnerFull as exc:
            return _busy(exc)
        try:
            return await asyncio.wrap_future(future)
        except ValueError as exc:  # SubmissionError, or a limit grading.grade refused
            return error(422, str(exc))
        except asyncio.CancelledError:
            if not future.cancelled():
                raise  # the request itself was cancelled (the client left)
            return error(503, "the service stopped before the grade started")
        except Exception as exc:  # the service's own fault; the report path never raises
            return error(500, f"internal error: {type(exc).__name__}: {exc}")

    @app.post(JOBS_PATH, status_code=202, response_model=JobAccepted,
              responses=ERROR_RESPONSES, summary="Grade one submission as a job")
    async def submit_job(body: JobRequest) -> Any:
        """Admit a grade and answer 202 at once with the job's id; GET
        ``/v1/jobs/{id}`` (or the ``callback_url``) has the report when it is done."""
        task = service.task_for(body)
        if isinstance(task, JSONResponse):
            return task
        if body.callback_url is not None:
            problem = callback_problem(body.callback_url, service.config.callback_hosts)
            if problem:
                return error(422, problem)
        job = service.jobs.new(task.exercise, task.request_id, body.callback_url)
        try:
            service.submit(task, job)
        except RunnerFull as exc:
            service.jobs.forget(job)
            return _busy(exc)
        url = f"{JOBS_PATH}/{job.id}"
        return JSONResponse(JobAccepted(id=job.id, url=url).model_dump(), status_code=202,
                            headers={"Location": url})

    @app.get(JOBS_PATH + "/{job_id}", response_model=JobBody,
             responses={404: {"model": ErrorBody, "description": "no such job (never "
                              "existed, or finished long ago and was dropped)"}},
             summary="A job's status, and its report once done")
    async def get_job(job_id: str) -> Any:
        found = service.jobs.get(job_id)
        if found is None:
            return error(404, f"no such job: {job_id}")
        return found


def _add_info_routes(app: FastAPI, service: Service) -> None:
    """The read-only endpoints: catalogue, report schema, probes and metrics."""
    config, course = service.config, service.course

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
        pool = service.pool
        return Health(syncgrade_version=syncgrade.__version__,
                      report_schema_version=SCHEMA_VERSION, workers=config.workers,
                      queue=config.queue, running=service.runner.running(),
                      queued=service.runner.queued(), warm_pool=config.warm_pool,
                      served_warm=pool.stats.warm if pool else 0,
                      zygote=pool.stats.zygote if pool else "off", course=course.title,
                      max_timeout=config.timeout_cap,
                      max_memory_gib=config.memory_cap / GIB)

    @app.get("/readyz", response_model=ReadyBody, summary="Readiness",
             responses={503: {"model": ReadyBody, "description": "not ready (yet)"}})
    async def readyz() -> Any:
        """200 once the warm pool has filled and the self-test grade passed; 503 before,
        and while shutting down."""
        body = service.readiness.body()
        return JSONResponse(body.model_dump(), status_code=200 if body.ready else 503)

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)
