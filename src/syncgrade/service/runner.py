"""Where the service's grades run: the :class:`JobRunner` seam and its local thread runner.

Every grade the service makes, synchronous (``POST /v1/grade``) or a job
(``POST /v1/jobs``), is one :class:`GradeTask` handed to the app's runner. The runner is
the only thing that decides where and when it runs; the service only admits, waits and
records. :class:`LocalJobRunner` runs tasks on ``workers`` threads of this process, each
a call of :func:`syncgrade.grading.grade` (the learner's code runs in its sandboxed
child, never here). A runner over a cluster (``syncgrade.cluster``, Dask) implements the
same interface and is passed to :func:`syncgrade.service.create_app` as ``runner=``.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from syncgrade.models import GradeReport


@dataclass(frozen=True)
class GradeTask:
    """Everything one grade needs, as plain values (so a remote runner can ship it):
    the exercise id, the learner's source, the name learners see, the child's limits
    (already checked against the service's caps) and the request id for the logs."""

    exercise: str
    source: str
    display_name: str
    timeout: float
    memory_bytes: int
    request_id: str = ""


class RunnerFull(Exception):
    """No slot for another task; ``retry_after_s`` estimates when one frees."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class JobRunner(ABC):
    """Runs grade tasks somewhere. The contract every runner keeps:

    - :meth:`submit` either raises :class:`RunnerFull` at once (nothing was taken) or
      returns a ``concurrent.futures.Future`` that is resolved exactly once: with the
      :class:`~syncgrade.models.GradeReport`, with the exception the grade raised, or
      cancelled by :meth:`close` before it started. No accepted task is ever left
      unresolved; the service turns each of these into a finished job.
    - ``on_start`` (if given) is called once, from any thread, when the task starts
      running; a runner that cannot tell may never call it.
    - :meth:`running`, :meth:`queued` and :meth:`retry_after_s` are cheap and
      thread-safe (they feed ``/healthz`` and ``/metrics``).
    - :meth:`close` stops admitting, cancels the tasks not started, and waits for the
      running ones. Idempotent. :meth:`drain` does the first two without waiting.
    """

    capacity: int
    """Tasks admitted at once (running and queued) before :meth:`submit` refuses."""

    @abstractmethod
    def submit(self, task: GradeTask,
               on_start: Callable[[], None] | None = None) -> Future[GradeReport]:
        """Admit ``task`` and return its future, or raise :class:`RunnerFull`."""

    @abstractmethod
    def running(self) -> int:
        """Tasks running now."""

    @abstractmethod
    def queued(self) -> int:
        """Tasks admitted and not started yet."""

    @abstractmethod
    def retry_after_s(self) -> int:
        """Whole seconds (at least 1) until a slot is likely free."""

    @abstractmethod
    def close(self) -> None:
        """Stop admitting; cancel what has not started; wait for what runs."""

    def drain(self) -> None:
        """A shutdown began: stop admitting and cancel what has not started, at once,
        without waiting for what runs (:meth:`close` waits later). Default: nothing
        (the runner cancels its queue at :meth:`close`)."""
        return None  # a runner that cannot cancel early keeps its queue until close()


class LocalJobRunner(JobRunner):
    """``workers`` threads of this process run ``grade(task)``; ``queue`` more tasks may
    wait. Admission, the running count and recent durations are kept under one lock."""

    def __init__(self, grade: Callable[[GradeTask], GradeReport], workers: int,
                 queue: int) -> None:
        self._grade = grade
        self.workers = workers
        self.capacity = workers + queue
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grade")
        self._lock = threading.Lock()
        self._admitted = 0
        self._running = 0
        self._closed = False
        self._durations: deque[float] = deque(maxlen=20)

    def submit(self, task: GradeTask,
               on_start: Callable[[], None] | None = None) -> Future[GradeReport]:
        with self._lock:
            if self._closed:
                raise RunnerFull("the service is shutting down", 5)
            if self._admitted >= self.capacity:
                raise RunnerFull(f"busy: {self.workers} grade(s) running and "
                                 f"{self.capacity - self.workers} waiting; retry later",
                                 self._retry_after_locked())
            self._admitted += 1
        try:
            future = self._executor.submit(self._run, task, on_start)
        except RuntimeError:  # the executor shut down between the check and here
            self._release(None)
            raise RunnerFull("the service is shutting down", 5) from None
        future.add_done_callback(self._release_if_cancelled)
        return future

    def _run(self, task: GradeTask, on_start: Callable[[], None] | None) -> GradeReport:
        with self._lock:
            self._running += 1
        started = time.perf_counter()
        try:
            if on_start is not None:
                on_start()
            return self._grade(task)
        finally:
            self._release(time.perf_counter() - started)

    def _release(self, seconds: float | None) -> None:
        with self._lock:
            self._admitted -= 1
            if seconds is not None:
                self._running -= 1
                self._durations.append(seconds)

    def _release_if_cancelled(self, future: Future[GradeReport]) -> None:
        if future.cancelled():  # never ran, so _run never released its slot
            self._release(None)

    def running(self) -> int:
        with self._lock:
            return self._running

    def queued(self) -> int:
        with self._lock:
            return max(0, self._admitted - self._running)

    def retry_after_s(self) -> int:
        with self._lock:
            return self._retry_after_locked()

    def _retry_after_locked(self) -> int:
        """The median recent grade time times the rounds of work ahead (a guess of 5 s a
        grade before any has finished)."""
        typical = statistics.median(self._durations) if self._durations else 5.0
        rounds = max(1, math.ceil((self._admitted - self.workers + 1) / self.workers))
        return max(1, math.ceil(typical * rounds))

    def drain(self) -> None:
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)


def cluster_grade(client: Any, course: str | None) -> Callable[[GradeTask], GradeReport]:
    """How one task is graded on a Dask cluster (``grade serve --cluster``): the task goes
    to a worker of ``client`` (a ``distributed.Client``, or a
    :class:`syncgrade.cluster.Reconnecting` that outlives scheduler outages), which
    grades it in its own sandboxed children and warm pool
    (:func:`syncgrade.cluster.grade`). Every replica of the service connected to one
    scheduler shares the cluster's workers; each replica's runner still bounds how many
    of its own grades are in flight. With a :class:`~syncgrade.cluster.Reconnecting`,
    a grade asked for or lost while the scheduler is unreachable raises
    :class:`~syncgrade.cluster.ClusterUnavailable` (the service answers 503)."""
    from syncgrade import cluster

    def grade(task: GradeTask) -> GradeReport:
        connection = client if isinstance(client, cluster.Reconnecting) else None
        current = connection.client() if connection is not None else client
        try:
            return cluster.grade(current, task.exercise, source=task.source,
                                 timeout=task.timeout, memory_bytes=task.memory_bytes,
                                 display_name=task.display_name, course=course)
        except (ValueError, cluster.ClusterError):
            raise
        except Exception as exc:  # lost with the scheduler: say so, not Dask's words
            problem = connection.problem() if connection is not None else ""
            if problem:
                raise cluster.ClusterUnavailable(problem) from exc
            raise

    return grade
