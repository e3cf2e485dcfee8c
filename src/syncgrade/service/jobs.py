"""Asynchronous grade jobs: their states, the store behind ``GET /v1/jobs/{id}`` and the
callbacks that POST a finished job to the URL its submitter named.

A job is ``queued`` when admitted, ``running`` once its grade starts, then ``done`` (with
the report, whatever its verdict, a grader fault included) or ``failed`` (no report: the
service could not grade it, e.g. it stopped before the job started; ``error`` says why).
Every admitted job ends ``done`` or ``failed``: the runner resolves every future it
accepted (:class:`~syncgrade.service.runner.JobRunner`).
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from syncgrade.models import GradeReport
from syncgrade.service.config import ANY_HOST

JobState = Literal["queued", "running", "done", "failed"]
FINISHED: frozenset[str] = frozenset({"done", "failed"})
CALLBACK_TRIES = 3


class JobBody(BaseModel):
    """A job as ``GET /v1/jobs/{id}`` and the callback show it."""

    id: str = Field(description="the job's id, as in its URL")
    status: JobState = Field(description="queued, running, done (report set) or failed "
                             "(error set)")
    exercise: str
    submitted_at: float = Field(description="Unix time the job was admitted")
    finished_at: float | None = Field(None, description="Unix time it ended")
    report: GradeReport | None = Field(None, description="the report, once done")
    error: str | None = Field(None, description="why it failed, when failed")


@dataclass
class Job:
    """One job's mutable record; the store's lock guards every change."""

    id: str
    exercise: str
    request_id: str
    callback_url: str | None
    status: JobState = "queued"
    submitted_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    report: GradeReport | None = None
    error: str | None = None

    def body(self) -> JobBody:
        return JobBody(id=self.id, status=self.status, exercise=self.exercise,
                       submitted_at=self.submitted_at, finished_at=self.finished_at,
                       report=self.report, error=self.error)


class JobStore:
    """Jobs by id, thread-safe. Unfinished jobs are always kept; of the finished ones the
    newest ``max_finished`` are (the oldest are dropped, and their id is then 404)."""

    def __init__(self, max_finished: int) -> None:
        self.max_finished = max_finished
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()

    def new(self, exercise: str, request_id: str, callback_url: str | None) -> Job:
        job = Job(id=uuid.uuid4().hex, exercise=exercise, request_id=request_id,
                  callback_url=callback_url)
        with self._lock:
            self._jobs[job.id] = job
        return job

    def forget(self, job: Job) -> None:
        """Drop a job that was never admitted."""
        with self._lock:
            self._jobs.pop(job.id, None)

    def get(self, job_id: str) -> JobBody | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return job.body() if job is not None else None

    def start(self, job: Job) -> None:
        with self._lock:
            if job.status == "queued":
                job.status = "running"

    def finish(self, job: Job, report: GradeReport | None, error: str | None) -> JobBody:
        """Mark ``job`` done (``report``) or failed (``error``), once; its final body."""
        with self._lock:
            if job.status not in FINISHED:
                job.status = "done" if report is not None else "failed"
                job.report, job.error = report, error
                job.finished_at = time.time()
                self._finished[job.id] = None
                while len(self._finished) > self.max_finished:
                    old, _ = self._finished.popitem(last=False)
                    self._jobs.pop(old, None)
            return job.body()

    def counts(self) -> dict[str, int]:
        """How many jobs the store holds in each state."""
        with self._lock:
            counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
            for job in self._jobs.values():
                counts[job.status] += 1
            return counts


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this
    machine: ``localhost`` or a loopback address. Names are not resolved."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def callback_problem(url: str, allowed_hosts: tuple[str, ...]) -> str:
    """Why ``url`` may not be a callback ("" when it may): it must be ``http(s)://`` and
    name a loopback host, or one of ``allowed_hosts`` (``"*"``: any host)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # raises ValueError for a bad port
    except ValueError as exc:
        return f"field 'callback_url': not a valid URL ({exc})"
    if parts.scheme not in ("http", "https") or not host:
        return "field 'callback_url' must be an http:// or https:// URL with a host"
    if parts.username or parts.password:
        return "field 'callback_url' must not carry credentials"
    allowed = {h.lower() for h in allowed_hosts}
    if is_loopback_host(host) or ANY_HOST in allowed or host.lower() in allowed:
        return ""
    return (f"field 'callback_url': host {host!r} is not allowed; this service calls back "
            "only loopback hosts unless its operator allows others (--callback-host)")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A callback is never redirected: a redirect could lead past the host check."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def post_callback(url: str, body: JobBody, request_id: str, timeout: float,
                  pause_s: float = 1.0) -> str:
    """POST ``body`` as JSON to ``url``, up to :data:`CALLBACK_TRIES` times (a pause of
    ``pause_s``, then twice that, between tries) until it answers 2xx. Returns "" when
    delivered, else the last problem in one line. Never raises."""
    data = body.model_dump_json().encode("utf-8")
    headers = {"Content-Type": "application/json", "User-Agent": "syncgrade",
               "X-Request-ID": request_id, "X-Syncgrade-Job": body.id}
    problem = ""
    for attempt in range(CALLBACK_TRIES):
        if attempt:
            time.sleep(pause_s * 2 ** (attempt - 1))
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with _OPENER.open(request, timeout=timeout) as response:
                if 200 <= response.status < 300:
                    return ""
                problem = f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code}"
        except (OSError, ValueError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
    return json.dumps(problem)[1:-1]  # one line, whatever the exception said
