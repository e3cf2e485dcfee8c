"""Processes in tests: finding a test's processes through /proc (Linux), what the sandbox
and the pool leave; and the load budget that scales a wall-time bound on a loaded machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def processes_inside(base: Path) -> list[int]:
    """Pids whose working directory is (or was) inside ``base``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if cwd.startswith(str(base)):
                found.append(int(entry))
    return found


# ---------------------------------------------------------------- the load budget

_REFERENCE_TASK = """\
import time
wall, cpu = time.perf_counter(), time.process_time()
n = 0
while time.process_time() - cpu < {cpu_s}:
    for _ in range(10_000):
        n += 1
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def load_stretch(cpu_s: float = 0.1) -> float:
    """How many times longer than its CPU time a CPU-bound task takes on the wall right
    now (>= 1.0): ``cpu_s`` of a pure-Python loop, timed inside a fresh process in its own
    session. Its own session, because that is where a sandboxed child runs (``setsid``):
    with the kernel's autogroup scheduling, the CPU share of a process depends on its
    session, so a stretch measured in this process could differ from the child's. About
    ``cpu_s`` of CPU, plus a Python start-up; on a loaded machine, ``stretch`` times that."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", _REFERENCE_TASK.format(cpu_s=cpu_s)],
        capture_output=True, text=True, check=True, timeout=600, start_new_session=True)
    wall, cpu = (float(word) for word in done.stdout.split())
    return max(1.0, wall / cpu)


class LoadBudget:
    """Wall-time bounds that hold on a loaded machine (issue 25).

    A test that bounds a wall time states the bound for an idle machine; the budget scales
    it by the measured load stretch (:func:`load_stretch`), measured when the budget is
    made, i.e. right before what the test times. :meth:`limit` gives a time limit to pass
    *into* the code under test (scaled by that stretch); :meth:`bound` a bound to check a
    measured wall time *against*, scaled by the worst stretch measured so far, itself
    measured again at the check (the load may have risen while the test ran). On an idle
    machine the stretch is about 1, so the bounds are the idle ones.
    """

    def __init__(self) -> None:
        self.stretch = load_stretch()

    def limit(self, seconds: float) -> float:
        """``seconds`` of an idle machine, as a limit for now: scaled, never remeasured."""
        return seconds * self.stretch

    def bound(self, seconds: float) -> float:
        """``seconds`` of an idle machine, as a bound on a wall time just measured: scaled
        by the larger of the stretch at the start and the stretch now."""
        self.stretch = max(self.stretch, load_stretch())
        return seconds * self.stretch


def descendants(pid: int | None = None) -> list[int]:
    """Every live descendant of ``pid`` (default: this process), from /proc's ppids."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, todo = [], [os.getpid() if pid is None else pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def descendant_with_file(name: str) -> int | None:
    """A descendant of this process whose working directory holds ``name`` (a grading
    child whose learner code made it there), or None. Only this test's own processes:
    other test runs on the machine have children of their own."""
    for pid in descendants():
        try:
            if os.path.exists(f"/proc/{pid}/cwd/{name}"):
                return pid
        except OSError:
            continue
    return None
