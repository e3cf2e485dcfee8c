"""Finding and killing the child's leftover processes from the grader's side.

In namespace mode the pid namespace does the real work (when its init exits the kernel
kills every process in it); this sweep is the belt-and-braces and the whole story in
basic mode. A leftover is any live process, other than the excluded ones, that

- is in the child's process group or session (a plain background child), or
- runs under the run's own per-run uid (root grader without namespaces), or
- carries the run's random token in its environment (``SYNCGRADE_RUN_TOKEN``), which
  every descendant inherits unless it deliberately execs with a fresh environment;
  that is what catches a ``setsid`` escapee that left the group and the session.

Signals go through a pidfd where available, so a pid recycled between the scan and the
kill cannot hit an unrelated process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

TOKEN_VAR = "SYNCGRADE_RUN_TOKEN"
PROC = "/proc"


def proc_scan_available() -> bool:
    """Whether /proc can be scanned (Linux); macOS has no /proc."""
    return os.path.isdir(f"{PROC}/self")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, pgrp, session) of ``pid``, or None if it is gone."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # comm is in parentheses and may itself contain spaces and parentheses.
    rest = raw[raw.rfind(b")") + 2 :].split()
    return rest[0].decode(), int(rest[2]), int(rest[3])


def _has_token(pid: int, needle: bytes) -> bool:
    try:
        with open(f"{PROC}/{pid}/environ", "rb") as f:
            return needle in f.read()
    except OSError:
        return False


def _owner(pid: int) -> int | None:
    try:
        return os.stat(f"{PROC}/{pid}").st_uid
    except OSError:
        return None


def find_leftovers(token: str, group: int | None, exclude: Iterable[int],
                   uid: int | None = None) -> set[int]:
    """Live, non-zombie processes that belong to the run (see the module docstring).

    ``uid``: the run's own per-run uid, if the child got one; every process of that uid
    is the run's, whatever it did to its group, session or environment.
    """
    skip = {os.getpid(), *exclude}
    needle = f"{TOKEN_VAR}={token}\0".encode()
    found = set()
    for name in os.listdir(PROC):
        if not name.isdigit() or int(name) in skip:
            continue
        pid = int(name)
        info = _stat(pid)
        if info is None or info[0] in ("Z", "X"):
            continue
        in_group = group is not None and group in (info[1], info[2])
        if in_group or (uid is not None and _owner(pid) == uid) or _has_token(pid, needle):
            found.add(pid)
    return found


def kill_pid(pid: int, sig: int = signal.SIGKILL) -> bool:
    """Send ``sig`` to ``pid``; False if it was already gone or not ours to signal."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    try:
        if fd >= 0:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(pid, sig)
        return True
    except OSError:
        return False
    finally:
        if fd >= 0:
            os.close(fd)


def sweep(token: str, group: int | None, exclude: Iterable[int], uid: int | None = None,
          rounds: int = 5) -> int:
    """Kill every leftover of the run; return how many distinct processes were killed.

    Repeats the scan because a leftover may fork while the previous round is killing;
    once SIGKILLed a process cannot fork again, so a few rounds reach a fixed point.
    """
    if not proc_scan_available():
        return 0
    excluded = set(exclude)
    killed: set[int] = set()
    for _ in range(rounds):
        batch = find_leftovers(token, group, excluded, uid) - killed
        if not batch:
            break
        killed |= {pid for pid in batch if kill_pid(pid)}
        excluded |= batch
    return len(killed)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal a whole process group, ignoring an already-empty group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def wait_gone(token: str, group: int | None, timeout: float) -> bool:
    """Wait (up to ``timeout`` s) until no live process of the run is left (zombies do
    not count: they run nothing and hold no directory); True if none is."""
    if not proc_scan_available():
        return True
    deadline = time.monotonic() + timeout
    while find_leftovers(token, group, ()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
