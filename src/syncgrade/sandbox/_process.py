"""The top process of one sandboxed run, as the grader tracks it.

Two kinds, one interface (:class:`RunProcess`):

- :class:`LauncherProcess`: the grader's own child, ``python -I -S _launcher.py``
  started with ``subprocess.Popen``;
- :class:`ForkedProcess`: a fork of a :class:`~syncgrade.sandbox.Zygote`, which is its
  parent. The grader holds a pidfd for it (sent by the zygote, so no pid can be reused in
  between) and asks the zygote to reap it.

Either way the process is the run's session and process group leader, and it stays an
unreaped zombie after it exits until :meth:`RunProcess.reap`, so its pid (and process
group id) cannot be recycled while the grader sweeps the run's leftovers.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Protocol

from .models import SandboxError

if TYPE_CHECKING:
    from ._zygote import Zygote


class RunProcess(Protocol):
    """What the runner needs of a run's top process."""

    @property
    def pid(self) -> int: ...

    @property
    def exit_fd(self) -> int:
        """An fd that becomes readable when the process exits, or -1 (then poll)."""
        ...

    def exited(self) -> bool:
        """Whether it has exited (never reaps)."""
        ...

    def reaped(self) -> bool:
        """Whether :meth:`reap` has collected it."""
        ...

    def reap(self, timeout: float | None = None) -> tuple[int, float] | None:
        """Wait up to ``timeout`` s (None: for ever) for it to exit, collect it, and
        return its wait status and CPU seconds (its own and its reaped children's);
        None if it is still running at the timeout. Closes the exit fd (a pump watching
        it holds its own duplicate). Idempotent: later calls return the same."""
        ...


class _Tracked:
    """What both kinds share: the pid, the exit fd, and the result once reaped."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self._pid = pid
        self._pidfd = pidfd
        self._result: tuple[int, float] | None = None

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def exit_fd(self) -> int:
        return self._pidfd

    def reaped(self) -> bool:
        return self._result is not None

    def _collected(self, result: tuple[int, float]) -> tuple[int, float]:
        """Remember the result of the reap and close the exit fd."""
        self._result = result
        if self._pidfd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = -1
        return result


class LauncherProcess(_Tracked):
    """A ``subprocess.Popen`` child; exit seen through ``waitid(WNOWAIT)`` and a pidfd."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        try:
            pidfd = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):
            pidfd = -1  # older kernel or not Linux: the pump polls instead
        super().__init__(popen.pid, pidfd)
        self._popen = popen

    def exited(self) -> bool:
        if self._result is not None:
            return True
        info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return info is not None and info.si_pid == self.pid

    def reap(self, timeout: float | None = None) -> tuple[int, float] | None:
        if self._result is not None:
            return self._result
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while not self.exited():
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.01)
        _, status, usage = os.wait4(self.pid, 0)
        self._popen.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait
        return self._collected((status, usage.ru_utime + usage.ru_stime))


class ForkedProcess(_Tracked):
    """A zygote's fork: its exit is the pidfd becoming readable; the zygote reaps it."""

    def __init__(self, zygote: Zygote, pid: int, pidfd: int) -> None:
        super().__init__(pid, pidfd)
        self._zygote = zygote

    def exited(self) -> bool:
        if self._result is not None:
            return True
        readable, _, _ = select.select([self._pidfd], [], [], 0)
        return bool(readable)

    def reap(self, timeout: float | None = None) -> tuple[int, float] | None:
        if self._result is not None:
            return self._result
        readable, _, _ = select.select([self._pidfd], [], [], timeout)
        if not readable:
            return None
        try:
            return self._collected(self._zygote.reap(self._pid))
        except SandboxError:
            # The zygote is gone, and its forks died with it (parent-death signal,
            # SIGKILL): say so once, and release the pidfd all the same.
            self._collected((signal.SIGKILL, 0.0))
            raise
