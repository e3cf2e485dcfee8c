"""Single-threaded I/O loop: child pipes -> bounded sinks, plus process-exit detection.

One thread, non-blocking fds and a selector, so nothing ever blocks on a pipe that an
orphaned grandchild still holds open: the loop always returns by its deadline, and the
fds are closed by their only user (no close-while-another-thread-reads races).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from syncgrade import timing

if TYPE_CHECKING:
    from ._process import RunProcess

_F_SETPIPE_SZ = 1031  # Linux: bigger pipes mean fewer wakeups for chatty children
_PIPE_SIZE = 1 << 20
_READ_SIZE = 1 << 20
_TICK_S = 0.02  # longest select wait: re-check exit and stop conditions this often


class Sink(Protocol):
    """Anything that accepts the bytes of one stream."""

    def feed(self, chunk: bytes) -> None: ...


def enlarge_pipe(fd: int) -> None:
    """Best effort: ask for a 1 MiB pipe buffer (Linux only, harmless to fail)."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_SIZE)


class Pump:
    """Reads registered fds into their sinks and watches one process for exit.

    Exit is detected without reaping (:meth:`RunProcess.exited`): the process stays a
    zombie, so its pid cannot be recycled before the caller has swept its leftovers and
    reaped it. The process's exit fd wakes the loop; the pump selects on its own
    duplicate of it, so the process may close its own when it is reaped.
    """

    def __init__(self, process: RunProcess) -> None:
        self._process = process
        self._sel = selectors.DefaultSelector()
        self._sinks: dict[int, Sink] = {}
        self.last_data: dict[int, float] = {}
        self._exited = False
        self._pidfd = -1
        if process.exit_fd >= 0:
            self._pidfd = os.dup(process.exit_fd)
            self._sel.register(self._pidfd, selectors.EVENT_READ)

    def add(self, fd: int, sink: Sink) -> None:
        """Start reading ``fd`` (the pump owns it from now on and will close it)."""
        os.set_blocking(fd, False)
        self._sinks[fd] = sink
        self._sel.register(fd, selectors.EVENT_READ)

    @property
    def open_streams(self) -> int:
        """How many registered streams have not reached EOF yet."""
        return len(self._sinks)

    def exited(self) -> bool:
        """Whether the watched process has exited (without reaping it)."""
        if not self._exited:
            self._exited = self._process.exited()
            if self._exited and self._pidfd >= 0:
                # A pidfd stays readable after exit; stop selecting on it.
                self._sel.unregister(self._pidfd)
        return self._exited

    def run(self, until: float, stop: Callable[[], bool]) -> bool:
        """Pump until ``stop()`` is true (returns True) or ``until`` passes (False).
        ``until`` is on the grader's clock (:func:`syncgrade.timing.monotonic`, so a test
        can run the deadline arithmetic on a fake clock); the select between two reads of
        it waits real time, at most a tick."""
        while True:
            if stop():
                return True
            left = until - timing.monotonic()
            if left <= 0:
                return False
            # Wake up at least every tick: ``stop`` may depend on time passing (a quiet
            # stack pipe), and without a pidfd an exit does not wake the selector.
            for key, _ in self._sel.select(min(left, _TICK_S)):
                if key.fd != self._pidfd:
                    self._read(key.fd)
                else:
                    self.exited()

    def _read(self, fd: int) -> None:
        try:
            chunk = os.read(fd, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._drop(fd)
            return
        self.last_data[fd] = timing.monotonic()
        self._sinks[fd].feed(chunk)

    def _drop(self, fd: int) -> None:
        self._sel.unregister(fd)
        del self._sinks[fd]
        os.close(fd)

    def close(self) -> None:
        """Close every fd still registered (called once, at the end of the run)."""
        for fd in list(self._sinks):
            self._drop(fd)
        if self._pidfd >= 0:
            if not self._exited:
                self._sel.unregister(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        self._sel.close()
