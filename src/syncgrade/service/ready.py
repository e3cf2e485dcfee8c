"""``/readyz``: whether this service can take grades now.

Ready means: the service's warm pool (if any) has filled, and a self-test grade has come
back with the verdict expected of it. The self-test grades a submission the service
knows the verdict of, through the same engine, sandbox and pool as a learner's grade
(:func:`choose_self_test`):

1. the course's own solution (``solution.py`` of its first exercise that has one), which
   must pass with full marks. A source checkout of the built-in course and most course
   folders have one; it is the strongest test (every check runs and passes);
2. else (an installed wheel ships no solutions) that exercise's ``stub.py``, the
   starter file learners get, which must be *graded* (cause ``graded``): the child
   started, ran the learner's function, the frames authenticated and every check ran.
   Its score is the course's business, not the self-test's;
3. else an empty module for the first exercise, which must come back with a verdict
   (not ``status: error``).

Once ready, the service stays ready (load is ``/healthz``'s business) until it shuts
down, except while its cluster (``grade serve --cluster``) cannot be used (the
scheduler is unreachable, or no worker is connected to it): then it is not ready, and
says why, until the scheduler and a worker are back. ``workers`` counts the grades that
can run at once (the service's threads, or the live Dask workers' threads). A self-test
that fails is retried every ``retry_s`` seconds (10 s: ``ServiceConfig.self_test_retry_s``);
``/readyz`` says why meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from syncgrade.courses import Course
from syncgrade.models import GradeReport
from syncgrade.pool import WarmPool
from syncgrade.service.config import SELF_TEST_RETRY_S


class ReadyBody(BaseModel):
    """``GET /readyz``'s answer, 200 or 503 alike."""

    ready: bool
    warm_pool: str = Field(description="how many of the pool's children are warm, or "
                           "'none' (no pool of its own)")
    self_test: str = Field(description="'pending', 'off', 'passed: ...' or 'failed: ...'")
    cluster: str = Field("none", description="'none' (grades run here), 'connected', or "
                         "why the Dask scheduler cannot be used now (then not ready), "
                         "'no workers: ...' included")
    workers: int = Field(0, description="grades that can run at once now: this service's "
                         "grade threads, or with a cluster the live Dask workers' threads "
                         "(0: not ready)")


@dataclass(frozen=True)
class SelfTest:
    """What the self-test grades and the verdict it wants (``expect``: ``passed``,
    ``graded``, or ``verdict``: any status but ``error``)."""

    exercise: str
    source: str
    name: str
    expect: str

    def problem(self, report: GradeReport) -> str:
        """Why ``report`` is not the expected one ("" when it is)."""
        ok = {"passed": report.status == "passed", "graded": report.cause == "graded",
              "verdict": report.status != "error"}[self.expect]
        if ok:
            return ""
        why = report.grading.internal_error or report.summary
        return (f"{self.exercise} {self.name} should be {self.expect}, got "
                f"{report.status}/{report.cause}: {why}")


def choose_self_test(course: Course) -> SelfTest:
    """The self-test for ``course`` (the module doc says which and why)."""
    ids = sorted(course.files)
    for kind, expect in (("solution", "passed"), ("stub", "graded")):
        for exercise_id in ids:
            files = course.files[exercise_id]
            path = files.solution if kind == "solution" else files.stub
            if exercise_id in course.exercises and path.is_file():
                return SelfTest(exercise_id, path.read_text(encoding="utf-8"),
                                path.name, expect)
    first = next((e for e in ids if e in course.exercises), ids[0] if ids else "exercise-1")
    return SelfTest(first, "# syncgrade self-test\n", "an empty module", "verdict")


class Readiness:
    """The state ``/readyz`` reports, and the start-up thread that makes it ready."""

    def __init__(self, self_test: SelfTest | None,
                 cluster: Callable[[], str] | None = None,
                 workers: Callable[[], int] = lambda: 1,
                 retry_s: float = SELF_TEST_RETRY_S) -> None:
        self.test = self_test
        self._retry_s = retry_s  # between a failed self-test and the next
        self._cluster = cluster  # "" when the cluster can be used, else why not
        self._workers = workers  # grades that can run at once now
        self._lock = threading.Lock()
        self._result = "pending" if self_test else "off"
        self._passed = self_test is None
        self._filled = False
        self._stopping = threading.Event()
        self._pool: WarmPool | None = None

    def body(self) -> ReadyBody:
        with self._lock:
            result, passed, filled = self._result, self._passed, self._filled
        pool = self._pool
        warm = "none" if pool is None else f"{pool.warm_children()} of {pool.size} warm"
        cluster = "none" if self._cluster is None else self._cluster() or "connected"
        workers = self._workers()
        ready = (passed and filled and not self._stopping.is_set() and workers > 0
                 and cluster in ("none", "connected"))
        return ReadyBody(ready=ready, warm_pool=warm, cluster=cluster, workers=workers,
                         self_test="stopping" if self._stopping.is_set() else result)

    def ready(self) -> bool:
        return self.body().ready

    def start(self, pool: WarmPool | None,
              grade: Callable[[SelfTest], GradeReport]) -> threading.Thread:
        """Begin the start-up checks on a thread of their own (returned)."""
        self._pool = pool
        thread = threading.Thread(target=self._run, args=(pool, grade), daemon=True,
                                  name="syncgrade-readiness")
        thread.start()
        return thread

    def stop(self) -> None:
        """The service is shutting down: not ready from now on."""
        self._stopping.set()

    def _run(self, pool: WarmPool | None, grade: Callable[[SelfTest], GradeReport]) -> None:
        while not self._stopping.is_set():
            if not self._wait_filled(pool):
                return
            if self.test is None or self._passed:
                break
            started = time.perf_counter()
            try:
                report = grade(self.test)
                problem = self.test.problem(report)
            except Exception as exc:  # the service's own fault: report it, retry later
                problem = f"{type(exc).__name__}: {exc}"
            seconds = time.perf_counter() - started
            with self._lock:
                self._passed = not problem
                self._result = (f"failed: {problem}" if problem else
                                f"passed: {self.test.exercise} {self.test.name} graded "
                                f"{self.test.expect} in {seconds:.1f} s")
            if problem:
                self._stopping.wait(self._retry_s)
        if self._wait_filled(pool):  # the self-test used a warm child: wait for its heir
            with self._lock:
                self._filled = True

    def _wait_filled(self, pool: WarmPool | None) -> bool:
        """Wait until every child of ``pool`` is warm; False when stopping first."""
        while pool is not None and pool.warm_children() < pool.size:
            if self._stopping.wait(0.05):
                return False
        return not self._stopping.is_set()
