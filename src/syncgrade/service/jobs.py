"""Asynchronous grade jobs: their states, the store behind ``GET /v1/jobs/{id}`` and the
callbacks that POST a finished job to the URL its submitter named.

A job is ``queued`` when admitted, ``running`` once its grade starts, then ``done`` (with
the report, whatever its verdict, a grader fault included) or ``failed`` (no report: the
service could not grade it, e.g. it stopped before the job started; ``error`` says why).
Every admitted job ends ``done`` or ``failed``: the runner resolves every future it
accepted (:class:`~syncgrade.service.runner.JobRunner`), and a job whose replica died
(``kill -9``, a lost node) is taken over by a live replica that shares the store
(:meth:`JobStore.claim_orphans`): graded once more, or ``failed`` and called back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from syncgrade import timing
from syncgrade.models import GradeReport
from syncgrade.service.config import ANY_HOST, STALE_S
from syncgrade.service.runner import GradeTask

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
    """What the replica that accepted a job keeps of it while it runs (its state and
    report are in the :class:`JobStore`)."""

    id: str
    exercise: str
    request_id: str
    callback_url: str | None
    staff: bool = False
    """Submitted with the staff token: its callback carries the full report."""
    submitted_at: float = field(default_factory=time.time)


class JobStore:
    """Jobs by id in SQLite (stdlib :mod:`sqlite3`), thread-safe, and safe to share between
    processes: ``path`` a file (WAL mode, waits up to :data:`BUSY_MS` for another
    process's write) or ``":memory:"`` (this store only). Unfinished jobs are always
    kept; of the finished ones the newest ``max_finished`` are (the oldest are dropped,
    and their id is then 404).

    Every store writes a heartbeat (:meth:`beat`; :class:`~syncgrade.service.app.Service`
    calls it every ``ServiceConfig.heartbeat_s``). A job left ``queued`` or ``running``
    by a store whose heartbeat is older than ``stale_s`` (default
    :data:`~syncgrade.service.config.STALE_S`; its process was killed: a clean
    stop ends every job) is an orphan: the next live store to call
    :meth:`claim_orphans` (every service does, with each heartbeat) takes it over, to
    grade it once more (its task is kept with it) or to end it ``failed`` and call it
    back, so no job waits forever or ends unannounced."""

    def __init__(self, max_finished: int, path: str = ":memory:", *,
                 stale_s: float = STALE_S) -> None:
        self.max_finished = max_finished
        self.stale_s = stale_s
        self.owner = uuid.uuid4().hex
        self._lock = threading.Lock()
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                                   timeout=BUSY_MS / 1000)
        with self._lock:
            if path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            present = {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}
            for name, kind in _ADDED_COLUMNS:
                if name not in present:
                    with contextlib.suppress(sqlite3.OperationalError):  # another replica
                        self._db.execute(f"ALTER TABLE jobs ADD COLUMN {name} {kind}")
        self.beat()

    def beat(self) -> None:
        """Record that this store's process is alive (now)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO owners VALUES (?, ?)",
                             (self.owner, time.time()))

    def new(self, exercise: str, request_id: str, callback_url: str | None,
            staff: bool = False, task: GradeTask | None = None) -> Job:
        """A ``queued`` job owned by this store. ``task``: what to grade, kept with the
        job so that another replica can grade it if this one dies (None: it cannot)."""
        job = Job(id=uuid.uuid4().hex, exercise=exercise, request_id=request_id,
                  callback_url=callback_url, staff=staff)
        kept = None if task is None else json.dumps(
            {"task": dataclasses.asdict(task), "callback_url": callback_url, "staff": staff})
        with self._lock:
            self._db.execute(
                "INSERT INTO jobs (id, exercise, status, submitted_at, owner, task) "
                "VALUES (?, ?, 'queued', ?, ?, ?)",
                (job.id, exercise, job.submitted_at, self.owner, kept))
        return job

    def forget(self, job: Job) -> None:
        """Drop a job that was never admitted."""
        with self._lock:
            self._db.execute("DELETE FROM jobs WHERE id = ?", (job.id,))

    def get(self, job_id: str) -> JobBody | None:
        """The job (its full report: callers choose the view), or None. An orphan reads
        as it was left until a live store claims it (:meth:`claim_orphans`)."""
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?",
                                   (job_id,)).fetchone()
        return None if row is None else _body(row)

    def claim_orphans(self) -> tuple[list[tuple[Job, GradeTask]], list[tuple[Job, JobBody]]]:
        """Take over every unfinished job whose store's heartbeat is older than
        ``stale_s``: one with its task that was not taken over before
        (:data:`MAX_REQUEUES`) becomes this store's, ``queued``, to grade again (first
        list: submit each); any other ends ``failed`` with :data:`ORPHANED` (second
        list: call each back). Each job is claimed by one store only (a conditional
        update on its old owner), however many replicas share the file."""
        again: list[tuple[Job, GradeTask]] = []
        ended: list[tuple[Job, JobBody]] = []
        with self._lock:
            rows = self._db.execute(
                "SELECT id, exercise, submitted_at, owner, task, attempts FROM jobs WHERE "
                "status IN ('queued', 'running') AND owner NOT IN "
                "(SELECT owner FROM owners WHERE seen > ?)",
                (time.time() - self.stale_s,)).fetchall()
            for job_id, exercise, submitted_at, owner, kept, attempts in rows:
                job, task = _revived(job_id, exercise, submitted_at, kept)
                if task is not None and attempts < MAX_REQUEUES:
                    cursor = self._db.execute(
                        "UPDATE jobs SET owner = ?, status = 'queued', attempts = ? "
                        "WHERE id = ? AND owner = ? AND status IN ('queued', 'running')",
                        (self.owner, attempts + 1, job_id, owner))
                    if cursor.rowcount:
                        again.append((job, task))
                    continue
                cursor = self._db.execute(
                    "UPDATE jobs SET owner = ?, status = 'failed', finished_at = ?, "
                    "error = ?, task = NULL WHERE id = ? AND owner = ? AND status IN "
                    "('queued', 'running')",
                    (self.owner, time.time(), ORPHANED, job_id, owner))
                if cursor.rowcount:
                    row = self._db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?",
                                           (job_id,)).fetchone()
                    ended.append((job, _body(row)))
        return again, ended

    def start(self, job: Job) -> None:
        with self._lock:
            self._db.execute("UPDATE jobs SET status = 'running' WHERE id = ? AND "
                             "status = 'queued'", (job.id,))

    def finish(self, job: Job, report: GradeReport | None, error: str | None
               ) -> JobBody | None:
        """Mark ``job`` done (``report``) or failed (``error``), once: its final body, or
        None when it had ended already (so it is called back once)."""
        status = "done" if report is not None else "failed"
        with self._lock:
            cursor = self._db.execute(
                "UPDATE jobs SET status = ?, finished_at = ?, report = ?, error = ?, "
                "task = NULL WHERE id = ? AND status IN ('queued', 'running')",
                (status, time.time(),
                 report.model_dump_json() if report is not None else None, error, job.id))
            if cursor.rowcount == 0:
                return None
            self._db.execute(
                "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status IN "
                "('done', 'failed') ORDER BY finished_at DESC LIMIT -1 OFFSET ?)",
                (self.max_finished,))
            row = self._db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?",
                                   (job.id,)).fetchone()
        return _body(row)

    def counts(self) -> dict[str, int]:
        """How many jobs the store holds in each state."""
        counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
        with self._lock:
            for status, count in self._db.execute(
                    "SELECT status, COUNT(*) FROM jobs GROUP BY status"):
                counts[status] = count
        return counts

    def close(self) -> None:
        with self._lock:
            self._db.close()


BUSY_MS = 10_000
MAX_REQUEUES = 1
"""A job is graded once more after its replica died, at most: a submission that kills
every replica that grades it ends ``failed``."""
ORPHANED = ("the service that accepted this job stopped before it finished, and it could "
            "not be graded again; submit it again")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, exercise TEXT NOT NULL,
    status TEXT NOT NULL, submitted_at REAL NOT NULL, finished_at REAL, report TEXT,
    error TEXT, owner TEXT NOT NULL, task TEXT, attempts INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (status, finished_at);
CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, seen REAL NOT NULL);
"""
_ADDED_COLUMNS = (("task", "TEXT"), ("attempts", "INTEGER NOT NULL DEFAULT 0"))
"""Columns a store made by an older syncgrade lacks (added when it is opened)."""
_COLUMNS = "id, status, exercise, submitted_at, finished_at, report, error"


def _revived(job_id: str, exercise: str, submitted_at: float,
             kept: str | None) -> tuple[Job, GradeTask | None]:
    """The job and task kept in the store (:meth:`JobStore.new`); no task when none was
    kept or it no longer reads (then the job can only end ``failed``)."""
    try:
        saved = json.loads(kept) if kept else None
        task = GradeTask(**saved["task"]) if saved else None
    except (ValueError, TypeError, KeyError):
        saved, task = None, None
    job = Job(id=job_id, exercise=exercise, request_id=task.request_id if task else "",
              callback_url=saved.get("callback_url") if saved else None,
              staff=bool(saved.get("staff")) if saved else False, submitted_at=submitted_at)
    return job, task


def _body(row: tuple[Any, ...]) -> JobBody:
    job_id, status, exercise, submitted_at, finished_at, report, error = row
    return JobBody(id=job_id, status=status, exercise=exercise, submitted_at=submitted_at,
                   finished_at=finished_at, error=error,
                   report=None if report is None else GradeReport.model_validate_json(report))


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
            timing.sleep(pause_s * 2 ** (attempt - 1))
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
