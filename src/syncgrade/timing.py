"""The grader's clock, one seam: the pool, the sandbox runner's deadlines, the grading
pipeline and the service read the time and sleep through :func:`monotonic` and
:func:`sleep` here, so a test can put a fake clock in their place (:class:`FakeClock`)
instead of bounding wall time on a loaded machine.

Only the grader's own clock goes through here: the sandboxed child's clocks
(``syncgrade.child``) are the learner's instrumentation and never do. Standard library
only (the Base layer)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_monotonic: Callable[[], float] = time.monotonic
_sleep: Callable[[float], None] = time.sleep


def monotonic() -> float:
    """Seconds on the grader's monotonic clock (``time.monotonic`` unless a test swapped
    it: :func:`use_clock`)."""
    return _monotonic()


def sleep(seconds: float) -> None:
    """Wait ``seconds`` on the grader's clock (``time.sleep`` unless a test swapped it)."""
    _sleep(seconds)


class FakeClock:
    """A clock that moves only when told to: :meth:`sleep` and :meth:`advance` add to
    :attr:`now` at once, so code that waits on it runs without waiting. Thread-safe."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.slept: list[float] = []
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)
            self.now += max(seconds, 0.0)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


@contextmanager
def use_clock(clock: FakeClock) -> Iterator[FakeClock]:
    """Read the time and sleep through ``clock`` inside the ``with`` block (process-wide:
    for tests), then put the real clock back."""
    global _monotonic, _sleep
    saved = _monotonic, _sleep
    _monotonic, _sleep = clock.monotonic, clock.sleep
    try:
        yield clock
    finally:
        _monotonic, _sleep = saved
