"""The resident-memory watchdog (``Limits.memory_kind="resident"``).

An accelerator runtime maps far more address space than it uses (libtpu reserves
gigabytes, and its device mappings show as resident file or shared memory), so RLIMIT_AS
cannot limit a child that opens a TPU or GPU. The watchdog instead sums the private
anonymous resident memory (``RssAnon`` in ``/proc/PID/status``: what ``malloc``,
NumPy arrays and Python objects use; ``VmRSS`` where the kernel writes no ``RssAnon``,
as gVisor does) of the run's processes, and says when it has grown
by more than the limit over a baseline: what the child held when its grader-side start-up
ended (the runtime's own memory, before any learner code). Readings are throttled to one
every :data:`POLL_S`, so a fast allocation can overshoot by what it adds in that time;
the host's own OOM killer remains the backstop.

cgroup v2 ``memory.max`` would make the kernel enforce it, but needs a delegated cgroup
the grader may write (absent on the machines measured: docs/accelerators.md); the
watchdog works for an ordinary user everywhere ``/proc`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from syncgrade import timing

PROC = "/proc"
POLL_S = 0.05


def rss_anon_bytes(pid: int) -> int:
    """``RssAnon`` of ``pid`` in bytes, else its ``VmRSS`` (gVisor, the TPU machines'
    kernel, writes no ``RssAnon``: its growth over the baseline is the learner's all the
    same); 0 when it is gone or unreadable."""
    fields: dict[bytes, int] = {}
    try:
        with open(f"{PROC}/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith((b"RssAnon:", b"VmRSS:")):
                    fields[line.split(b":")[0]] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return fields.get(b"RssAnon", fields.get(b"VmRSS", 0))


class ResidentWatch:
    """Decides, reading at most every :data:`POLL_S`, whether the run's processes
    (``pids()``: the run's live processes) hold more than ``limit`` bytes of private
    resident memory over the baseline (:meth:`set_baseline`, or the first reading)."""

    def __init__(self, limit: int, pids: Callable[[], Iterable[int]],
                 read: Callable[[int], int] = rss_anon_bytes) -> None:
        self.limit = limit
        self._pids = pids
        self._read = read
        self.baseline: int | None = None
        self.peak = 0
        self.exceeded = False
        self._next = 0.0

    def total(self) -> int:
        """The run's private resident bytes now."""
        return sum(self._read(pid) for pid in set(self._pids()))

    def set_baseline(self) -> None:
        """What the run holds now is the runtime's: the limit counts from here."""
        self.baseline = self.total()

    def over(self) -> bool:
        """True once the run has grown by more than ``limit`` (stays true)."""
        if self.exceeded:
            return True
        now = timing.monotonic()
        if now < self._next:
            return False
        self._next = now + POLL_S
        used = self.total()
        if self.baseline is None:
            self.baseline = used
        self.peak = max(self.peak, used - self.baseline)
        self.exceeded = used - self.baseline > self.limit
        return self.exceeded
