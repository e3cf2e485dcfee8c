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
DEFAULT_MAX_JOBS = 10_000
"""Finished jobs kept for ``GET /v1/jobs/{id}``; past it the oldest finished are dropped."""
ANY_HOST = "*"
"""In :attr:`ServiceConfig.callback_hosts`: callbacks may go to any host."""


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
    callback_hosts: tuple[str, ...] = ()
    """Hosts a job's ``callback_url`` may name besides loopback ones (``127.0.0.0/8``,
    ``::1``, ``localhost``); ``"*"``: any host."""
    self_test: bool = True
    """Grade a known submission at start-up; ``/readyz`` is 200 only once it passed."""
    max_jobs: int = DEFAULT_MAX_JOBS
    callback_timeout: float = 10.0
    """Seconds each callback POST may take (three tries in all)."""

    def __post_init__(self) -> None:
        if (self.workers < 1 or self.queue < 0 or self.max_body < 1
                or self.warm_pool < 0 or self.max_jobs < 1):
            raise ValueError("workers >= 1, queue >= 0, max_body >= 1, warm_pool >= 0 and "
                             "max_jobs >= 1")
        check_timeout(self.timeout)
        check_memory_bytes(self.memory_bytes)
        check_timeout(self.callback_timeout, "callback_timeout")
        if self.timeout_cap < self.timeout:
            raise ValueError(f"max_timeout ({self.timeout_cap:g} s) is below the default "
                             f"timeout ({self.timeout:g} s)")
        if self.memory_cap < self.memory_bytes:
            raise ValueError(f"max_memory_bytes ({self.memory_cap}) is below the default "
                             f"memory_bytes ({self.memory_bytes})")
        if self.auth_token is not None and (not self.auth_token.strip()
                                            or any(c.isspace() for c in self.auth_token)):
            raise ValueError("auth_token must be a non-empty string without whitespace")

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
