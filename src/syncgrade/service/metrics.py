"""``GET /metrics``: the service's Prometheus metrics, in a registry of its own.

Each app has its own :class:`~prometheus_client.CollectorRegistry` (never the
process-global one), so two apps in one process, e.g. tests, count independently.

Counted as grades end (synchronous ones and jobs alike):

- ``syncgrade_grades_total{status, cause}``: grades that produced a report, by the
  report's ``status`` and ``cause``;
- ``syncgrade_grade_seconds``: histogram of each report's ``grading.seconds`` (what the
  report records, so any runner's grades are timed alike);
- ``syncgrade_grader_faults_total{cause}``: reports that are grader faults (``status``
  ``error``), by cause (:func:`syncgrade.grading.cause.fault_cause`: ``killed``, a
  grading child killed from outside twice; ``startup``, ``out_of_time``, ``sandbox``,
  ``other``);
- ``syncgrade_grade_faults_total``: grades that raised instead, a usage error (422)
  excepted: the service's fault, a 500 or a ``failed`` job;
- ``syncgrade_rejected_total{reason}``: requests refused for want of a slot (``busy``);
- ``syncgrade_jobs_total{status}``: jobs finished, ``done`` or ``failed``;
- ``syncgrade_callbacks_total{outcome}``: callback POSTs ``delivered`` or ``failed``;
- ``syncgrade_http_requests_total{method, route, code}``: every HTTP answer, by method,
  route template (``/v1/jobs/{job_id}``; ``other`` for paths the service does not serve)
  and status code, the ones middleware gives (401, 413, 415, ...) included;
- ``syncgrade_http_request_seconds{method, route}``: histogram of the time to answer.

Read at each scrape: ``syncgrade_running``, ``syncgrade_queue_depth``,
``syncgrade_pool_hits_total`` / ``syncgrade_pool_misses_total{reason}`` (child runs served
by a warm child or not; the service's own pool only, the self-test included),
``syncgrade_pool_warm_children`` and ``syncgrade_ready`` (1 when ``/readyz`` is 200).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from syncgrade.grading.cause import FAULT_CAUSES, fault_cause
from syncgrade.models import GradeReport
from syncgrade.pool import WarmPool
from syncgrade.service.runner import JobRunner

CONTENT_TYPE = CONTENT_TYPE_LATEST
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 30.0, 60.0, 120.0,
                   300.0, 600.0)


class ServiceMetrics:
    """The counters the service updates, and the live figures read at scrape time from
    the runner, the pool (``pool()``: the service's own, or None) and ``ready()``."""

    def __init__(self, runner: Callable[[], JobRunner], pool: Callable[[], WarmPool | None],
                 ready: Callable[[], bool]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.grades = Counter("syncgrade_grades", "Grades that produced a report, by the "
                              "report's status and cause", ["status", "cause"],
                              registry=self.registry)
        self.latency = Histogram("syncgrade_grade_seconds", "Seconds per grade (the "
                                 "report's grading.seconds)",
                                 buckets=LATENCY_BUCKETS, registry=self.registry)
        self.faults = Counter("syncgrade_grade_faults", "Grades that raised instead of "
                              "producing a report (the service's fault)",
                              registry=self.registry)
        self.grader_faults = Counter("syncgrade_grader_faults", "Reports that are grader "
                                     "faults (status error), by cause", ["cause"],
                                     registry=self.registry)
        for cause in (*FAULT_CAUSES.values(), "other"):
            self.grader_faults.labels(cause=cause)
        self.rejected = Counter("syncgrade_rejected", "Grade requests and jobs refused "
                                "for want of a slot", ["reason"], registry=self.registry)
        self.jobs = Counter("syncgrade_jobs", "Jobs finished, by final status", ["status"],
                            registry=self.registry)
        self.callbacks = Counter("syncgrade_callbacks", "Job callback POSTs, by outcome",
                                 ["outcome"], registry=self.registry)
        self.http_requests = Counter("syncgrade_http_requests", "HTTP requests answered, "
                                     "by method, route and status code",
                                     ["method", "route", "code"], registry=self.registry)
        self.http_seconds = Histogram("syncgrade_http_request_seconds", "Seconds to answer "
                                      "an HTTP request", ["method", "route"],
                                      buckets=LATENCY_BUCKETS, registry=self.registry)
        for reason in ("busy",):  # every series from the start, at 0: alerts see them
            self.rejected.labels(reason=reason)
        for status in ("done", "failed"):
            self.jobs.labels(status=status)
        for outcome in ("delivered", "failed"):
            self.callbacks.labels(outcome=outcome)
        self.registry.register(_Live(runner, pool, ready))

    def graded(self, report: GradeReport, seconds: float) -> None:
        """Count one grade that produced ``report`` in ``seconds``."""
        self.grades.labels(status=report.status, cause=report.cause).inc()
        self.latency.observe(seconds)
        if report.status == "error":
            self.grader_faults.labels(cause=fault_cause(report.grading.internal_error)).inc()

    def answered(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one HTTP answer (a :class:`~syncgrade.service.logs.RequestContext`
        observer)."""
        self.http_requests.labels(method=method, route=route, code=str(status)).inc()
        self.http_seconds.labels(method=method, route=route).observe(seconds)

    def render(self) -> bytes:
        """The exposition text of every metric of this app."""
        return generate_latest(self.registry)


class _Live:
    """The figures read at each scrape rather than counted."""

    def __init__(self, runner: Callable[[], JobRunner], pool: Callable[[], WarmPool | None],
                 ready: Callable[[], bool]) -> None:
        self._runner, self._pool, self._ready = runner, pool, ready

    def collect(self) -> Iterator[Metric]:
        runner, pool = self._runner(), self._pool()
        yield GaugeMetricFamily("syncgrade_running", "Grades running now",
                                value=runner.running())
        yield GaugeMetricFamily("syncgrade_queue_depth", "Grades admitted and waiting for "
                                "a worker", value=runner.queued())
        stats = pool.stats if pool is not None else None
        yield CounterMetricFamily("syncgrade_pool_hits", "Child runs served by a warm "
                                  "child of the service's pool",
                                  value=stats.warm if stats else 0)
        misses = CounterMetricFamily("syncgrade_pool_misses", "Child runs the service's "
                                     "pool sent to a cold child, by reason",
                                     labels=["reason"])
        for reason, count in sorted((stats.fallback_reasons if stats else {}).items()):
            misses.add_metric([reason], count)
        yield misses
        yield GaugeMetricFamily("syncgrade_pool_warm_children", "Idle warm children now",
                                value=pool.warm_children() if pool is not None else 0)
        yield GaugeMetricFamily("syncgrade_ready", "1 when /readyz answers 200",
                                value=1 if self._ready() else 0)
