"""What one service process is configured with: :class:`ServiceConfig`."""

from __future__ import annotations

from dataclasses import dataclass

from syncgrade.limits import (
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TIMEOUT_S,
    check_memory_bytes,
    check_timeout,
)

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a submission is a few KiB; PrairieLearn caps results at 1 MB
DEFAULT_DRAIN_S = 20.0
"""Within Kubernetes' default grace of 30 s, with room for the last callbacks."""
LAST_CALLBACKS_S = 5.0
"""How long a shutdown waits past its drain deadline for the callbacks still going."""
DEFAULT_MAX_JOBS = 10_000
"""Finished jobs kept for ``GET /v1/jobs/{id}``; past it the oldest finished are dropped."""
ANY_HOST = "*"
"""In :attr:`ServiceConfig.callback_hosts`: callbacks may go to any host."""


HEARTBEAT_S = 2.0
"""How often a live service writes its heartbeat and claims orphans (2 s)."""
STALE_S = 20.0
"""A heartbeat this old means its process is gone (20 s, ten missed beats: a live
service under a load of 20 on two cores still beats within a few seconds). A dead
replica's job is therefore taken over within ``STALE_S + HEARTBEAT_S`` (22 s) of its
last beat."""
SELF_TEST_RETRY_S = 10.0
"""How long a failed self-test waits before the next (10 s)."""


@dataclass(frozen=True)
class ServiceConfig:
    """Limits of one service process. ``workers`` grades run at once, ``queue`` more wait
    (synchronous grades and jobs together); ``timeout`` and ``memory_bytes`` are each
    learner child's limits when a request names none, checked as on the CLI
    (:mod:`syncgrade.limits`). A request may ask for its own ``timeout``/``memory`` up
    to ``max_timeout``/``max_memory_bytes`` (default: ``timeout``/``memory_bytes``, i.e.
    only lower). A bad value raises ``ValueError``."""

    workers: int = 2
    queue: int = 8
    max_body: int = DEFAULT_MAX_BODY
    timeout: float = DEFAULT_TIMEOUT_S
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    warm_pool: int = 0
    """Children the service keeps pre-started (jax imported, no learner code, one
    submission each; see :mod:`syncgrade.pool`). 0: the process-wide pool when
    ``SYNCGRADE_WARM_POOL`` is set, else a cold child per grade. ``grade serve`` passes
    its ``--warm-pool`` (default: ``workers``)."""
    course: str | None = None
    """The course served: a folder or an installed course's name (default:
    ``$SYNCGRADE_COURSE``, else the built-in course); :func:`create_app` opens it."""
    max_timeout: float | None = None
    """The largest ``timeout`` a request may ask for (default: ``timeout``)."""
    max_memory_bytes: int | None = None
    """The largest ``memory`` a request may ask for, in bytes (default: ``memory_bytes``)."""
    auth_token: str | None = None
    """When set, every endpoint but ``/healthz`` and ``/readyz`` needs
    ``Authorization: Bearer <token>`` (401 otherwise). ``grade serve`` decides it from
    the host, ``$SYNCGRADE_SERVE_TOKEN``, ``--token-file`` and ``--no-auth``."""
    staff_token: str | None = None
    """The staff's bearer token: a request that carries it sees full reports (every
    check's own message, hint and evidence, as ``grade --reveal``), and a job it submits is
    called back with the full report. Every other request gets the learner's view, with
    ``hidden`` and ``after_due_date`` checks redacted
    (:func:`syncgrade.platforms.visibility.redact`). ``grade serve`` reads it from
    ``--staff-token-file`` or ``$SYNCGRADE_SERVE_STAFF_TOKEN``; None: no one sees the full
    view over HTTP. With ``auth_token`` set, either token is let in."""
    callback_hosts: tuple[str, ...] = ()
    """Hosts a job's ``callback_url`` may name besides loopback ones (``127.0.0.0/8``,
    ``::1``, ``localhost``); ``"*"``: any host."""
    self_test: bool = True
    """Grade a known submission at start-up; ``/readyz`` is 200 only once it passed."""
    max_jobs: int = DEFAULT_MAX_JOBS
    callback_timeout: float = 10.0
    """Seconds each callback POST may take (three tries in all)."""
    drain_timeout: float = DEFAULT_DRAIN_S
    """Seconds a shutdown (SIGTERM, Ctrl-C, the ASGI lifespan's end) waits for the grades
    running then: by that deadline a held-open ``POST /v1/grade`` answers 503 and a job
    still running ends ``failed``; its callback then gets at most :data:`LAST_CALLBACKS_S`
    more. Keep it under the orchestrator's grace period (Kubernetes: 30 s)."""
    job_store: str = ":memory:"
    """Where jobs are kept: an SQLite file (created if missing), so that they survive a
    restart and every replica given the same file reads every job; ``":memory:"``: in
    this process only. ``grade serve`` defaults to a file (``--job-store``)."""
    heartbeat_s: float = HEARTBEAT_S
    """Seconds between this replica's heartbeats (each also claims dead replicas' jobs)."""
    stale_s: float = STALE_S
    """How old another replica's heartbeat must be for its jobs to be taken over."""
    self_test_retry_s: float = SELF_TEST_RETRY_S
    """Seconds between a failed self-test and the next. These three are no operator's
    settings (``grade serve`` has no option for them): tests that wait one out pass
    shorter ones, and the same code runs."""

    def __post_init__(self) -> None:
        if (self.workers < 1 or self.queue < 0 or self.max_body < 1
                or self.warm_pool < 0 or self.max_jobs < 1):
            raise ValueError("workers >= 1, queue >= 0, max_body >= 1, warm_pool >= 0 and "
                             "max_jobs >= 1")
        check_timeout(self.timeout)
        check_memory_bytes(self.memory_bytes)
        check_timeout(self.callback_timeout, "callback_timeout")
        check_timeout(self.drain_timeout, "drain_timeout")
        for name in ("heartbeat_s", "stale_s", "self_test_retry_s"):
            check_timeout(getattr(self, name), name)
        if self.stale_s <= self.heartbeat_s:
            raise ValueError(f"stale_s ({self.stale_s:g} s) must be longer than heartbeat_s "
                             f"({self.heartbeat_s:g} s): a live replica would read as dead")
        if self.timeout_cap < self.timeout:
            raise ValueError(f"max_timeout ({self.timeout_cap:g} s) is below the default "
                             f"timeout ({self.timeout:g} s)")
        if self.memory_cap < self.memory_bytes:
            raise ValueError(f"max_memory_bytes ({self.memory_cap}) is below the default "
                             f"memory_bytes ({self.memory_bytes})")
        for name, token in (("auth_token", self.auth_token),
                            ("staff_token", self.staff_token)):
            if token is not None and (not token.strip() or any(c.isspace() for c in token)):
                raise ValueError(f"{name} must be a non-empty string without whitespace")
        if self.staff_token is not None and self.staff_token == self.auth_token:
            raise ValueError("staff_token must differ from auth_token: whoever holds the "
                             "learners' token would see the staff's view")

    @property
    def timeout_cap(self) -> float:
        """The largest timeout a request may ask for, checked."""
        return self.timeout if self.max_timeout is None else check_timeout(
            self.max_timeout, "max_timeout")

    @property
    def memory_cap(self) -> int:
        """The largest memory (bytes) a request may ask for, checked."""
        return self.memory_bytes if self.max_memory_bytes is None else check_memory_bytes(
            self.max_memory_bytes, "max_memory_bytes")
