"""The defaults, written once (limits, start-up budget, output formats), and the one check
every way in applies to the limits.

The ``grade`` command and ``grade batch`` (``--timeout``, ``--memory``), ``grade serve``
and its :class:`~syncgrade.service.ServiceConfig`, the Python API
(``grade(timeout=, memory_bytes=)``) and the platform entry points all call these, so a
limit that is not a finite number above 0 and below a sane maximum is refused the same way
everywhere: as a usage error, before anything runs, never as a learner's grade.

Imports nothing heavy: the CLI parses its options with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

DEFAULT_TIMEOUT_S = 60.0
STARTUP_TIMEOUT_S = 120.0
"""The grader's own budget for starting each grading child (spawn, imports, the
instrumentation, until its hello frame), apart from the learner's timeout, which counts
from that frame (``sandbox.Limits.startup_s``). Generous: a loaded machine, not a
learner, makes it slow, and an overrun is a grader fault, never the learner's timeout."""
DEFAULT_OVERHEAD_S = 120.0
"""The grader's own budget in one grade, besides the learner's timeout: the start-up of
every grading child, stopping it, and reading its results. A grade ends within
``timeout + overhead`` seconds of its call (``grading.grade(overhead=)``): each child's
start-up gets what is left of it less :data:`STOP_RESERVE_S`, and a grade with nothing
left to start a child ends at once as a grader fault. Platform bundles set a tighter one
(docs/platforms.md, "Time limits on each platform")."""
PLATFORM_OVERHEAD_S = 20.0
"""The overhead the Gradescope and PrairieLearn bundles use (``"overhead"`` in their
``syncgrade.json``): with the 60 s timeout, a results file within 80 s of the entry
point's start (measured: docs/platforms.md, "Time limits on each platform")."""
STOP_RESERVE_S = 3.0
"""The part of the overhead kept back, whatever the start-ups took, for stopping a child
at its limit (the stack dump's grace, the kill, the reap) and building the report."""


@dataclass(frozen=True)
class Deadline:
    """When one grade must end, and the budget that set it: ``timeout + overhead``
    seconds from ``at - timeout - overhead`` (a ``time.monotonic()`` reading: the call,
    or a platform entry point's process start). Every grader fault the deadline causes
    names the budget with its numbers (:meth:`named`), not a cap that did not apply."""

    at: float
    """The deadline, on the grader's monotonic clock (``syncgrade.timing.monotonic``)."""
    timeout: float
    overhead: float

    @classmethod
    def after(cls, begun: float, timeout: float, overhead: float) -> Deadline:
        """The deadline ``timeout + overhead`` seconds after ``begun``."""
        return cls(begun + timeout + overhead, timeout, overhead)

    def left(self, now: float) -> float:
        """Seconds a child may still take at ``now``: to the deadline, less
        :data:`STOP_RESERVE_S` kept to stop it."""
        return self.at - now - STOP_RESERVE_S

    def named(self) -> str:
        """``the grade's deadline (timeout + overhead: 8 + 9 s)``."""
        return (f"the grade's deadline (timeout + overhead: {self.timeout:g} + "
                f"{self.overhead:g} s)")

    def too_short(self, now: float, needed: float = 0.0) -> str:
        """Why no child should start at ``now`` ("" if one may): no more than ``needed``
        seconds are left before the deadline beyond :data:`STOP_RESERVE_S`.

        The grade itself asks for nothing more (``needed`` 0): the learner's whole
        timeout need not fit, since a child that runs out of time before its timeout is
        the grader's fault, never the learner's (``SandboxOutcome.cut_short``), and one
        whose code finishes in what is left is graded as any other; a child started
        earlier (a platform entry point's) may be nearly ready by then. A platform entry
        point, before it loads the exercise, asks for the learner's timeout: room for
        that loading and the learner's time, or a fault at once."""
        left = self.left(now)
        if left > needed:
            return ""
        learner = f"the learner's {needed:g} s and " if needed else ""
        return (f"{max(left + STOP_RESERVE_S, 0.0):.1f} s were left before {self.named()}, "
                f"too few for {learner}the {STOP_RESERVE_S:g} s kept to stop a child")


DEFAULT_MEMORY_GIB = 4.0
MAX_TIMEOUT_S = 3600.0
"""An hour: no exercise needs more, and a larger limit is a typo (milliseconds?)."""
MAX_MEMORY_GIB = 1024.0
GIB = 2**30
DEFAULT_MEMORY_BYTES = int(DEFAULT_MEMORY_GIB * GIB)

OUTPUT_FORMATS = ("text", "json", "gradescope", "prairielearn", "exercism")
"""What ``grade --format`` (and the service, batch) can write: the terminal view, one
GradeReport, or a platform's results file (:mod:`syncgrade.platforms.output`)."""
PLATFORM_FORMATS = OUTPUT_FORMATS[2:]
BATCH_FORMATS = ("jsonl", "csv", *OUTPUT_FORMATS)


def check_timeout(seconds: object, name: str = "timeout") -> float:
    """``seconds`` as a float; ``ValueError`` unless finite, > 0 and at most
    :data:`MAX_TIMEOUT_S`, ``TypeError`` if it is not a real number."""
    return _checked(seconds, name, MAX_TIMEOUT_S, "seconds")


def check_overhead(seconds: object, name: str = "overhead") -> float:
    """The grader's overhead budget as a float: like :func:`check_timeout`, and more than
    :data:`STOP_RESERVE_S` (nothing would be left to start a child)."""
    value = _checked(seconds, name, MAX_TIMEOUT_S, "seconds")
    if value <= STOP_RESERVE_S:
        raise ValueError(f"{name} must be more than {STOP_RESERVE_S:g} seconds (the "
                         f"grader's reserve for stopping a child), not {seconds!r}")
    return value


def check_memory_gib(gib: object, name: str = "memory") -> float:
    """``gib`` (GiB) as a float; ``ValueError`` unless finite, > 0 and at most
    :data:`MAX_MEMORY_GIB`, ``TypeError`` if it is not a real number."""
    value = _checked(gib, name, MAX_MEMORY_GIB, "GiB")
    check_memory_bytes(int(value * GIB), name)  # at least one byte
    return value


def check_memory_bytes(count: object, name: str = "memory_bytes") -> int:
    """``count`` (bytes) as an int; ``ValueError`` unless finite, at least 1 and at most
    :data:`MAX_MEMORY_GIB` GiB, ``TypeError`` if it is not a real number."""
    value = int(_checked(count, name, MAX_MEMORY_GIB * GIB, "bytes",
                         f"{MAX_MEMORY_GIB:g} GiB"))
    if value < 1:
        raise ValueError(f"{name} must be at least 1 byte, not {count!r}")
    return value


def _checked(value: object, name: str, maximum: float, unit: str,
             most: str = "") -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number of {unit}, not {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and 0 < number <= maximum):
        shown = repr(value) if len(repr(value)) <= 40 else f"{number:g}"
        raise ValueError(f"{name} must be a number of {unit} above 0 and at most "
                         f"{most or f'{maximum:g}'}, not {shown}")
    return number
