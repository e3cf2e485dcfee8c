"""Values that go into and come out of a sandboxed run.

Everything here is an immutable value: the sandbox never reports a learner's failure by
raising, it returns a :class:`SandboxOutcome` that says what happened. Only a fault of the
grader itself (a bad ``argv``, a sandbox that could not be set up) raises
:class:`SandboxError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from syncgrade.limits import DEFAULT_MEMORY_BYTES, DEFAULT_TIMEOUT_S

Termination = Literal["exited", "timeout", "memory", "signal", "cpu"]
"""How the child ended.

- ``exited``: it returned an exit status on its own (any status, 0 or not).
- ``timeout``: the sandbox stopped it at ``Limits.wall_s`` (or at ``Limits.startup_s``:
  ``SandboxOutcome.startup_timeout``).
- ``memory``: it hit the address-space limit (inferred, see ``_classify``), or the
  resident-memory watchdog stopped it (``Limits.memory_kind="resident"``).
- ``cpu``: it used up ``Limits.cpu_s`` of CPU time (SIGXCPU, or SIGKILL past the limit).
- ``signal``: it was killed by any other signal (``signal_name`` says which).
"""

MemoryKind = Literal["address-space", "resident"]
"""How the memory limit is enforced (``Limits.memory_kind``)."""

Isolation = Literal["auto", "namespaces", "basic"]
"""Requested isolation level.

- ``auto``: use Linux namespaces where they work, else fall back to ``basic``.
- ``namespaces``: require the namespace jail; raise :class:`SandboxError` if unavailable.
- ``basic``: only process group, rlimits, scrubbed env, temp workdir, privilege drop if
  possible, and the leftover-process sweep. Used on macOS, as non-root, in containers
  without ``CAP_SYS_ADMIN``, and by tests of the fallback.
"""


class SandboxError(RuntimeError):
    """The sandbox itself failed (a grader fault, never a learner's fault)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one child run.

    ``cpu_s=None`` means ``(wall_s + startup_s) * cpu_count + 1``: CPU time is a backstop
    for a wall timer that failed, and a multi-threaded child (XLA) legitimately burns more
    CPU seconds than wall seconds, so it must not be killed for CPU before the wall limit
    (nor during a start-up that has its own budget).
    """

    wall_s: float = DEFAULT_TIMEOUT_S
    """Wall-clock limit for the child, measured from spawn (from delivery for a
    pre-started run), or, when ``startup_s`` is set, from the child's first write to
    the result channel."""
    startup_s: float | None = None
    """Budget for the child's own start-up, from spawn (or delivery) until its first
    write to the result channel; ``wall_s`` counts from that write on. A child that has
    not written by then is stopped as a timeout with ``SandboxOutcome.startup_timeout``
    set: the start-up overran, not the code the wall limit is for. ``None``: no separate
    start-up, ``wall_s`` counts from spawn (or delivery)."""
    end_s: float | None = None
    """A cap on the whole run, start-up and wall time together, from spawn (or delivery):
    a child still running then is stopped (no stack dump) with
    ``SandboxOutcome.cut_short`` set when it had not had its full ``wall_s`` yet (the
    caller's own deadline cut it, not the limit the wall time is for). ``None``: no cap
    besides ``startup_s`` and ``wall_s``."""
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    """RLIMIT_AS. jax + XLA CPU needs more than 1 GiB of address space; 2 GiB works.
    Under ``memory_kind="resident"``: the resident memory the child may add to what it
    held at its first result frame."""
    cpu_s: float | None = None
    """RLIMIT_CPU soft limit in seconds (hard limit one second later)."""
    output_bytes: int = 64_000
    """Excerpt kept per stream (stdout, stderr): first and last halves; rest is counted."""
    result_bytes: int = 32 * 2**20
    """Cap on the bytes of all frames together on the result channel (payloads plus their
    4-byte headers). Past it (or past ``result_frames``) the child is stopped at once."""
    result_frames: int = 4096
    """Cap on the number of frames on the result channel (empty frames count)."""
    file_bytes: int = 256 * 2**20
    """RLIMIT_FSIZE: the largest file the child may write."""
    processes: int | None = 1024
    """RLIMIT_NPROC (processes + threads); only applied when the child runs under its own
    per-run uid, because the limit counts every process of the uid system-wide."""
    tmp_bytes: int = 64 * 2**20
    """Size of the private ``/tmp`` and ``/dev/shm`` tmpfs (namespace mode only)."""
    stack_grace_s: float = 1.0
    """At timeout: how long to wait for the SIGUSR1 stack dump before killing."""
    memory_kind: MemoryKind = "address-space"
    """How ``memory_bytes`` is enforced. ``"address-space"``: RLIMIT_AS, set before exec.
    ``"resident"``: no RLIMIT_AS (a device runtime reserves far more address space than
    it uses: libtpu's mmap fails under 4 GiB), but a watchdog in the grader polls the
    private resident memory (``RssAnon``) of the run's processes and stops the run, as a
    ``memory`` ending, once it grows by more than ``memory_bytes`` over what it was at the
    child's first result frame (the runtime's own, before any learner code). Without
    ``startup_s`` the baseline is the first reading after spawn."""

    def effective_cpu_s(self, cpu_count: int) -> float:
        """The CPU-seconds limit actually applied (see the class docstring)."""
        if self.cpu_s is not None:
            return self.cpu_s
        return (self.wall_s + (self.startup_s or 0.0)) * max(1, cpu_count) + 1.0


@dataclass(frozen=True)
class Captured:
    """A bounded excerpt of one output stream of the child.

    ``text`` is the whole stream when ``truncated`` is false. When true, it is the first
    and last parts of the stream joined by a one-line ``[... N bytes omitted ...]``
    marker: the end of stderr is where the traceback is. ``total_bytes`` counts every
    byte the child wrote, kept or not. Decoded as UTF-8 with ``errors="replace"``.
    """

    text: str
    truncated: bool
    total_bytes: int


@dataclass(frozen=True)
class Protection:
    """One protection the sandbox tried, whether it is in force, and why (not)."""

    name: str
    applied: bool
    detail: str


@dataclass(frozen=True)
class SandboxOutcome:
    """What happened in one sandboxed run. Never raised; always returned."""

    termination: Termination
    returncode: int | None
    """Exit status if the child exited, ``-signum`` if a signal killed it (Popen style)."""
    signal_name: str | None
    """E.g. ``"SIGSEGV"`` when a signal ended the child, else None."""
    wall_s: float
    stdout: Captured
    stderr: Captured
    frames: list[bytes]
    """Every complete frame from the result channel, in order, within ``result_bytes``."""
    frames_truncated: bool
    """True when frames past ``Limits.result_bytes`` or ``Limits.result_frames`` were
    discarded; the sandbox then stopped the child at once (no point in waiting)."""
    stack_dump: str | None
    """Whatever the child wrote to the stack fd (the SIGUSR1 faulthandler dump at a
    timeout), or None when it wrote nothing."""
    escaped_killed: int
    """Processes other than the main child still alive when it ended (or was stopped),
    which the sandbox then killed: background children, ``setsid`` escapees, daemons."""
    protections: list[Protection]
    isolation: Literal["namespaces", "basic"] = "basic"
    """The isolation level actually used."""
    frames_incomplete: bool = False
    """True when a partial trailing frame was dropped (the child died mid-write)."""
    cpu_s: float | None = None
    """CPU seconds (user + system) of the child and its reaped descendants, if known."""
    stderr_flags: tuple[str, ...] = field(default=())
    """Out-of-memory markers found in stderr (evidence for ``termination="memory"``)."""
    startup_timeout: bool = False
    """True when the child was stopped because it had not written to the result channel
    within ``Limits.startup_s`` (``termination`` is then ``timeout``): its own start-up
    overran, before anything the wall limit is for ran."""
    cut_short: bool = False
    """True when the child was stopped at ``Limits.end_s`` before it had its full
    ``Limits.wall_s`` (``termination`` is then ``timeout``): the caller's deadline, not
    the child's own time limit, ended it."""
    clock_s: float = 0.0
    """The seconds counted against ``Limits.wall_s``: ``wall_s`` less the start-up when
    ``Limits.startup_s`` is set (0 when the child never wrote to the result channel)."""
    unexplained_kill: bool = False
    """True when a SIGKILL or SIGTERM ended the child (``termination`` ``signal``) that
    the sandbox did not send, with none of its limits reached: it came from outside (an
    operator, the host's OOM killer) or from the child itself, which only the child can
    tell (the grader asks it: ``grading.cause.killed_from_outside``)."""

    def protection(self, name: str) -> Protection | None:
        """The protection called ``name``, or None if the sandbox did not try it."""
        return next((p for p in self.protections if p.name == name), None)

    def applied(self, name: str) -> bool:
        """Whether the protection called ``name`` is in force for this run."""
        found = self.protection(name)
        return found is not None and found.applied
