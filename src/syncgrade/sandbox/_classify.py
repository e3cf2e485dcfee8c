"""Deciding how a child ended, as a pure function of what the sandbox observed."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from .models import Termination

MEMORY_MARKERS = (
    "MemoryError",
    "std::bad_alloc",
    "Cannot allocate memory",
    "RESOURCE_EXHAUSTED",
    "Unable to allocate",  # numpy's _ArrayMemoryError
    "Out of memory",
    "out of memory",
    "failed to map segment from shared object",  # dlopen under RLIMIT_AS
    "pthread_create() failed",  # XLA aborts when a thread stack cannot be mapped
    "cannot allocate memory for thread-local data",  # glibc, a new thread (exit 127)
)
"""Substrings of stderr that say an allocation failed. RLIMIT_AS makes mmap/brk fail, so
the child does not get a distinctive signal: Python raises MemoryError, C++ throws
bad_alloc and often aborts, XLA reports RESOURCE_EXHAUSTED. A heuristic, on purpose."""

_MEMORY_SIGNALS = {signal.SIGABRT, signal.SIGKILL, signal.SIGSEGV, signal.SIGBUS}
_KILL_SIGNALS = {signal.SIGKILL, signal.SIGTERM}


@dataclass(frozen=True)
class Ending:
    """How the child ended: the ``SandboxOutcome`` fields derived from its wait status."""

    termination: Termination
    returncode: int | None
    signal_name: str | None
    memory_flags: tuple[str, ...]
    unexplained_kill: bool = False
    """A SIGKILL or SIGTERM ended it that the sandbox did not send, with none of its
    limits reached (see :func:`classify`)."""


def signal_name(signum: int) -> str:
    """``SIGSEGV`` for 11, ``SIG42`` for a number without a name."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"SIG{signum}"


def memory_flags(stderr_text: str) -> tuple[str, ...]:
    """The out-of-memory markers present in ``stderr_text``, in ``MEMORY_MARKERS`` order."""
    return tuple(m for m in MEMORY_MARKERS if m in stderr_text)


def classify(
    *,
    wait_status: int | None,
    timed_out: bool,
    cpu_used: float | None,
    cpu_limit: float,
    stderr_text: str,
    stopped: bool = False,
) -> Ending:
    """Map the raw observations to a termination.

    Precedence: ``timeout`` (the sandbox stopped it; whatever signal that took is
    reported alongside) > ``cpu`` (SIGXCPU, or SIGKILL with the CPU budget spent: the
    RLIMIT_CPU hard limit) > ``memory`` (non-zero exit or abort-like signal plus an
    allocation-failure marker in stderr) > ``signal`` > ``exited``.
    ``wait_status`` None means the status was lost (treated as killed by SIGKILL).

    ``stopped``: the sandbox itself killed the child (its time limit, its result cap).
    A ``signal`` ending by SIGKILL or SIGTERM that it did not send is
    ``unexplained_kill``: sent from outside (an operator, the host's OOM killer) or by
    the child to itself, which only the child can tell.
    """
    if wait_status is None:
        code, sig = None, int(signal.SIGKILL)
    elif os.WIFSIGNALED(wait_status):
        code, sig = None, os.WTERMSIG(wait_status)
    else:
        code, sig = os.waitstatus_to_exitcode(wait_status), None
    returncode = -sig if sig is not None else code
    name = signal_name(sig) if sig is not None else None
    flags = memory_flags(stderr_text)

    def ending(termination: Termination) -> Ending:
        return Ending(termination, returncode, name, flags)

    if timed_out:
        return ending("timeout")
    spent = cpu_used is not None and cpu_used >= cpu_limit - 0.05
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and spent):
        return ending("cpu")
    failed = (sig in _MEMORY_SIGNALS) or (code is not None and code != 0)
    if failed and flags:
        return ending("memory")
    if sig is not None:
        return Ending("signal", returncode, name, flags,
                      unexplained_kill=sig in _KILL_SIGNALS and not stopped)
    return ending("exited")
