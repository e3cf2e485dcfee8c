"""The FastAPI application: :func:`create_app` and its routes (see the package doc)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor, wait
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

import syncgrade
from syncgrade import grading, timing
from syncgrade.cluster import ClusterUnavailable
from syncgrade.courses import Course
from syncgrade.limits import GIB
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.platforms.common import clean_name
from syncgrade.platforms.visibility import redact
from syncgrade.pool import WarmPool
from syncgrade.schema import Catalogue, catalogue, report_schema
from syncgrade.service.auth import BearerAuth, is_staff
from syncgrade.service.config import LAST_CALLBACKS_S, ServiceConfig
from syncgrade.service.guard import BodyGuard, add_error_handlers, error
from syncgrade.service.jobs import (
    ORPHANED,
    Job,
    JobBody,
    JobStore,
    callback_problem,
    post_callback,
)
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
VIEW_HEADER = "X-Syncgrade-View"
"""On every answer that carries a report: ``learner`` (hidden checks redacted) or
``staff`` (the request carried the staff token: everything)."""


def view_for(report: GradeReport, staff: bool) -> GradeReport:
    """What a caller may see of ``report``: all of it for staff, else the learner's view
    (``hidden`` and ``after_due_date`` checks redacted, as ``grade --json`` does)."""
    return report if staff else redact(report)


def job_view(body: JobBody, staff: bool) -> JobBody:
    """``body`` with its report (if any) in the view of :func:`view_for`."""
    if body.report is None or staff:
        return body
    return body.model_copy(update={"report": redact(body.report)})


def _view_headers(staff: bool) -> dict[str, str]:
    return {VIEW_HEADER: "staff" if staff else "learner"}

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


class Drained(Exception):
    """A grade still running when a shutdown's drain time ran out (503, or a failed job)."""


@dataclass(frozen=True)
class InFlight:
    """A grade handed to the runner and not finished: its task, its job (None for a
    synchronous grade) and the answer its requester waits on."""

    task: GradeTask
    job: Job | None
    answer: Future[GradeReport]


def _settle(answer: Future[GradeReport], future: Future[GradeReport]) -> None:
    """Give ``answer`` the runner's outcome, unless a drain answered it first."""
    with contextlib.suppress(InvalidStateError):
        if future.cancelled():
            answer.cancel()
        elif (exc := future.exception()) is not None:
            answer.set_exception(exc)
        else:
            answer.set_result(future.result())


def _run_into(work: Callable[[], None], done: Future[None]) -> None:
    try:
        work()
    finally:
        done.set_result(None)


class Service:
    """One app's state: its course, runner, jobs, metrics, readiness and warm pool.

    Every grade, synchronous or a job, goes through :meth:`submit`, so admission, the
    metrics and the logs are the same for both, whichever runner runs it."""

    def __init__(self, config: ServiceConfig, course: Course, runner: JobRunner | None,
                 grade: Callable[[GradeTask], GradeReport] | None = None,
                 cluster: Callable[[], str] | None = None,
                 workers: Callable[[], int] | None = None) -> None:
        self.config = config
        self.course = course
        self.pool: WarmPool | None = None
        # Where one grade runs: here (the warm pool), or elsewhere (e.g. a Dask cluster,
        # syncgrade.cluster); the self-test goes the same way as a learner's grade.
        self.grade_one = grade or self.grade_task
        self.runner = runner or LocalJobRunner(self.grade_one, config.workers, config.queue)
        self.jobs = JobStore(config.max_jobs, config.job_store, stale_s=config.stale_s)
        self.readiness = Readiness(choose_self_test(course) if config.self_test else None,
                                   cluster, workers or (lambda: config.workers),
                                   retry_s=config.self_test_retry_s)
        self.metrics = ServiceMetrics(lambda: self.runner, lambda: self.pool,
                                      self.readiness.ready)
        self.callbacks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="callback")
        self._callbacks_lock = threading.Lock()
        self._delivering: set[Future[None]] = set()
        self._inflight: dict[Future[GradeReport], InFlight] = {}
        self._inflight_lock = threading.Lock()
        self._deadline: float | None = None  # timing.monotonic() the drain ends at
        self._stopped = threading.Event()
        self._abandoned = 0
        self.abandoned = 0
        """Grades a shutdown abandoned at its drain deadline (set by the lifespan)."""

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
        logged, counted and, for a job, recorded and called back. Returns the answer: the
        runner's outcome (report, exception, or cancelled before it started), or
        :class:`Drained` when a shutdown's drain time ran out first."""
        try:
            future = self.runner.submit(
                task, on_start=partial(self.jobs.start, job) if job else None)
        except RunnerFull:
            self.metrics.rejected.labels(reason="busy").inc()
            raise
        entry = InFlight(task, job, Future())
        with self._inflight_lock:
            self._inflight[future] = entry
        future.add_done_callback(partial(self._finished, entry))
        return entry.answer

    def _finished(self, entry: InFlight, future: Future[GradeReport]) -> None:
        """A task's future resolved: record its job first (so that no job is left
        unfinished whatever follows), then count, log, call back and answer."""
        with self._inflight_lock:
            self._inflight.pop(future, None)
        try:
            self._record(entry.task, entry.job, future)
        finally:
            _settle(entry.answer, future)

    def _record(self, task: GradeTask, job: Job | None,
                future: Future[GradeReport]) -> None:
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
        if job is not None and body is not None:  # None: it ended at a drain's deadline
            self.metrics.jobs.labels(status=body.status).inc()
            if job.callback_url:
                self._call_back(job, body)

    def _abandon(self) -> None:
        """The drain time ran out: every grade still in flight answers :class:`Drained`
        and its job ends ``failed`` (called back)."""
        with self._inflight_lock:
            left = list(self._inflight.values())
            self._inflight.clear()
        problem = (f"the service stopped: its drain time ({self.config.drain_timeout:g} s) "
                   "ran out before the grade finished; submit it again")
        self._abandoned += len(left)
        for entry in left:
            if entry.job is not None:
                body = self.jobs.finish(entry.job, None, problem)
                if body is not None:
                    self.metrics.jobs.labels(status=body.status).inc()
                    if entry.job.callback_url:
                        self._call_back(entry.job, body)
            log("grade abandoned", 30, request_id=entry.task.request_id,
                job=entry.job.id if entry.job else None, exercise=entry.task.exercise)
            with contextlib.suppress(InvalidStateError):
                entry.answer.set_exception(Drained(problem))

    def _call_back(self, job: Job, body: JobBody) -> None:
        url = job.callback_url
        assert url is not None

        def deliver() -> None:
            # the submitter's view: the full report only for a job the staff submitted
            problem = post_callback(url, job_view(body, job.staff), job.request_id,
                                    self.config.callback_timeout)
            self.metrics.callbacks.labels(outcome="failed" if problem else "delivered").inc()
            log("callback", 30 if problem else 20, request_id=job.request_id, job=job.id,
                url=url, delivered=not problem, **({"error": problem} if problem else {}))

        with self._callbacks_lock:
            try:
                delivery = self.callbacks.submit(deliver)
            except RuntimeError:  # shut down: deliver it on a thread of its own
                delivery = Future()
                threading.Thread(target=_run_into, args=(deliver, delivery),
                                 daemon=True, name="callback-late").start()
            self._delivering.add(delivery)
            delivery.add_done_callback(self._delivering.discard)

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
        threading.Thread(target=self._heartbeat, daemon=True,
                         name="syncgrade-jobs-heartbeat").start()

    def _heartbeat(self) -> None:
        """Every ``config.heartbeat_s``: this replica is alive, and the jobs of replicas
        that are not are taken over (:meth:`adopt_orphans`)."""
        while not self._stopped.wait(self.config.heartbeat_s):
            try:
                self.jobs.beat()
                if self._deadline is None:  # a draining replica takes on nothing
                    self.adopt_orphans()
            except Exception as exc:  # a locked or broken store: the next beat retries
                log("heartbeat failed", 40, error=f"{type(exc).__name__}: {exc}")

    def adopt_orphans(self) -> int:
        """Take over the jobs of dead replicas (:meth:`JobStore.claim_orphans`): grade
        each once more here, or, when it was graded again already, has no task kept or
        finds no room, end it ``failed`` and call it back. How many were taken over."""
        again, ended = self.jobs.claim_orphans()
        for job, task in again:
            log("job requeued", 30, request_id=task.request_id, job=job.id,
                exercise=task.exercise)
            try:
                self.submit(task, job)
            except RunnerFull:
                body = self.jobs.finish(job, None, ORPHANED)
                if body is not None:
                    ended.append((job, body))
        for job, body in ended:
            log("job orphaned", 40, request_id=job.request_id, job=job.id,
                exercise=job.exercise, error=body.error)
            self.metrics.jobs.labels(status=body.status).inc()
            if job.callback_url:
                self._call_back(job, body)
        return len(again) + len(ended)

    def begin_drain(self) -> None:
        """A shutdown began (SIGTERM, Ctrl-C): not ready from now on, nothing more is
        admitted (a grade asked for answers 503), the grades still queued are cancelled
        at once (their jobs end ``failed`` and are called back), and the drain's
        deadline, ``drain_timeout`` from now, is set; at it every grade still running is
        abandoned (:meth:`_abandon`). Idempotent, and quick (a signal handler calls
        it)."""
        if self._deadline is not None:
            return
        self._deadline = timing.monotonic() + self.config.drain_timeout
        self.readiness.stop()
        self.runner.drain()
        timer = threading.Timer(self.config.drain_timeout, self._abandon)
        timer.daemon = True
        timer.start()

    @property
    def draining(self) -> bool:
        """Whether a shutdown's drain has begun."""
        return self._deadline is not None

    def wait_drained(self) -> None:
        """Block until no grade is in flight, or the drain's deadline passed (begun by
        :meth:`begin_drain`); polled, as grades end on other threads."""
        while self._deadline is not None and timing.monotonic() < self._deadline:
            with self._inflight_lock:
                if not self._inflight:
                    return
            timing.sleep(0.05)

    def stop(self) -> int:
        """Not ready; queued grades are cancelled (their jobs end ``failed``), running
        ones may finish until the drain's deadline (:meth:`begin_drain`, begun here if
        no signal began it) and are abandoned then; the callbacks get
        :data:`LAST_CALLBACKS_S` more, then the pool ends. How many grades were
        abandoned (their threads and children are still running: the caller's process
        should exit, which kills the children)."""
        self.begin_drain()
        assert self._deadline is not None
        closing = threading.Thread(target=self.runner.close, daemon=True,
                                   name="syncgrade-runner-close")
        closing.start()
        closing.join(max(0.0, self._deadline - timing.monotonic()))
        if closing.is_alive():
            self._abandon()  # the timer may have been first; this takes any left
        abandoned = self._abandoned
        with self._callbacks_lock:
            self.callbacks.shutdown(wait=False)
            pending = set(self._delivering)
        wait(pending, timeout=max(0.0, self._deadline - timing.monotonic()) + LAST_CALLBACKS_S)
        self._stopped.set()
        if self.pool is not None and not abandoned:
            self.pool.close()
        log("stopped", 30 if abandoned else 20, abandoned=abandoned)
        return abandoned


def create_app(config: ServiceConfig | None = None, *,
               runner: JobRunner | None = None,
               grade: Callable[[GradeTask], GradeReport] | None = None,
               cluster: Callable[[], str] | None = None,
               workers: Callable[[], int] | None = None) -> FastAPI:
    """The FastAPI application for ``config`` (defaults: :class:`ServiceConfig`).
    ``runner``: where grades run (default: a :class:`LocalJobRunner` of ``workers``
    threads and a queue of ``queue``). ``grade``: how one task is graded by the default
    runner and the self-test (default: here, in this service's warm pool; see
    :func:`syncgrade.service.runner.cluster_grade` for a Dask cluster). ``cluster``:
    why the cluster cannot be used now ("" when it can; e.g.
    :meth:`syncgrade.cluster.Reconnecting.problem`): not ready meanwhile. ``workers``:
    how many grades can run at once now (default: ``config.workers``; with a cluster
    :meth:`syncgrade.cluster.Reconnecting.threads`): ``/readyz`` says it, and 0 is not
    ready. Raises
    :class:`~syncgrade.courses.CourseError` when its course cannot be opened."""
    from syncgrade.courses import open_course

    config = config or ServiceConfig()
    service = Service(config, open_course(config.course), runner, grade, cluster, workers)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        yield
        service.abandoned = await asyncio.get_running_loop().run_in_executor(
            None, service.stop)

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
        app.add_middleware(BearerAuth, tokens=tuple(
            t for t in (config.auth_token, config.staff_token) if t is not None))
    add_error_handlers(app)
    _add_grade_routes(app, service)
    _add_info_routes(app, service)
    # outermost: every answer has its request id, and is counted by status code
    app.add_middleware(RequestContext, observe=service.metrics.answered,
                       known=frozenset(getattr(r, "path", "") for r in app.routes))
    return app


def _busy(exc: RunnerFull, service: Service) -> JSONResponse:
    if service.draining:  # not a full queue: this replica is going away
        return error(503, "the service is shutting down; submit it again (another "
                          "replica, or this one once restarted)", {"Retry-After": "5"})
    return error(429, str(exc), {"Retry-After": str(exc.retry_after_s)})


def _add_grade_routes(app: FastAPI, service: Service) -> None:
    """``POST /v1/grade`` (wait for the report), ``POST /v1/jobs``, ``GET /v1/jobs/{id}``."""

    @app.post(GRADE_PATH, response_model=GradeReport, responses=ERROR_RESPONSES,
              summary="Grade one submission")
    async def grade(body: GradeRequest, request: Request) -> Any:
        """Grade ``source`` for ``exercise`` in a sandboxed child process. 200 with the
        report whatever the verdict, a grader fault (``status: error``) included: the
        learner's view (hidden checks redacted) unless the request carries the staff
        token (``X-Syncgrade-View`` says which)."""
        task = service.task_for(body)
        if isinstance(task, JSONResponse):
            return task
        try:
            future = service.submit(task)
        except RunnerFull as exc:
            return _busy(exc, service)
        staff = is_staff(request.scope, service.config.staff_token)
        try:
            report = await asyncio.wrap_future(future)
            return Response(view_for(report, staff).model_dump_json(),
                            media_type="application/json", headers=_view_headers(staff))
        except Drained as exc:  # a shutdown's drain time ran out
            return error(503, str(exc), {"Retry-After": "5"})
        except ClusterUnavailable as exc:  # grade serve --cluster, scheduler gone
            return error(503, f"cannot grade now: {exc}; retry later",
                         {"Retry-After": "5"})
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
    async def submit_job(body: JobRequest, request: Request) -> Any:
        """Admit a grade and answer 202 at once with the job's id; GET
        ``/v1/jobs/{id}`` (or the ``callback_url``) has the report when it is done."""
        task = service.task_for(body)
        if isinstance(task, JSONResponse):
            return task
        if body.callback_url is not None:
            problem = callback_problem(body.callback_url, service.config.callback_hosts)
            if problem:
                return error(422, problem)
        job = service.jobs.new(task.exercise, task.request_id, body.callback_url,
                               staff=is_staff(request.scope, service.config.staff_token),
                               task=task)
        try:
            service.submit(task, job)
        except RunnerFull as exc:
            service.jobs.forget(job)
            return _busy(exc, service)
        url = f"{JOBS_PATH}/{job.id}"
        return JSONResponse(JobAccepted(id=job.id, url=url).model_dump(), status_code=202,
                            headers={"Location": url})

    @app.get(JOBS_PATH + "/{job_id}", response_model=JobBody,
             responses={404: {"model": ErrorBody, "description": "no such job (never "
                              "existed, or finished long ago and was dropped)"}},
             summary="A job's status, and its report once done")
    async def get_job(job_id: str, request: Request) -> Any:
        """The job; its report in the learner's view unless the request carries the
        staff token (``X-Syncgrade-View`` says which)."""
        found = service.jobs.get(job_id)
        if found is None:
            return error(404, f"no such job: {job_id}")
        staff = is_staff(request.scope, service.config.staff_token)
        return Response(job_view(found, staff).model_dump_json(),
                        media_type="application/json", headers=_view_headers(staff))


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
        """200 once the warm pool has filled and the self-test grade passed, while some
        worker can grade (``workers``); 503 before, while no worker can, and while
        draining."""
        body = service.readiness.body()
        return JSONResponse(body.model_dump(), status_code=200 if body.ready else 503)

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=CONTENT_TYPE)
