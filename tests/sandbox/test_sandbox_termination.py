"""How a child ends is reported as data: exits, signals, timeouts, memory, CPU.

Wall limits and wall-time bounds are stated for an idle machine and scaled by the load
budget measured at run time (``process_support.LoadBudget``, issue 25): on a machine loaded
at ten times its cores a child needs ten times the wall time for the same work.
"""

from __future__ import annotations

import re
import time

import pytest
from process_support import LoadBudget
from sandbox_support import ARM_STACK_DUMP, Runner

from syncgrade.sandbox import FrameDecoder, Limits
from syncgrade.timing import FakeClock, use_clock


def test_sys_exit_status_is_reported(run: Runner) -> None:
    out = run("import sys; print('bye'); sys.exit(3)")
    assert (out.termination, out.returncode, out.signal_name) == ("exited", 3, None)
    assert out.stdout.text == "bye\n"


def test_os_exit_skips_cleanup_but_status_is_reported(run: Runner) -> None:
    out = run("import os, sys; sys.stdout.write('unflushed'); os._exit(7)")
    assert (out.termination, out.returncode) == ("exited", 7)
    assert out.stdout.total_bytes == 0  # os._exit does not flush Python's buffer


def test_self_sigkill_is_a_signal_not_memory(run: Runner) -> None:
    out = run("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert (out.termination, out.signal_name, out.returncode) == ("signal", "SIGKILL", -9)


def test_segfault_is_reported_as_sigsegv(run: Runner) -> None:
    out = run("import ctypes; ctypes.string_at(0)")
    assert (out.termination, out.signal_name, out.returncode) == ("signal", "SIGSEGV", -11)


def test_infinite_loop_in_function_stops_with_stack_dump(run: Runner) -> None:
    budget = LoadBudget()
    limit, grace = budget.limit(2.0), budget.limit(5.0)
    out = run(ARM_STACK_DUMP + "def spin():\n    n = 0\n    while True:\n        n += 1\n"
              "spin()\n", limits=Limits(wall_s=limit, stack_grace_s=grace))
    assert out.termination == "timeout"
    assert out.signal_name == "SIGKILL"
    # The dump ends the grace period early: an idle machine needs under 0.9 s of it.
    assert limit <= out.wall_s < limit + min(budget.bound(0.9), 0.9 * grace), out.wall_s
    assert out.stack_dump is not None
    # faulthandler: 'File ".../main.py", line 7 in spin' (or the loop header, line 6,
    # depending on where the interpreter was when the signal came), then the caller.
    assert re.search(r'main\.py", line [67] in spin\n.*main\.py", line 8 in <module>',
                     out.stack_dump), out.stack_dump


def test_infinite_loop_at_import_names_the_module_line(run_auto: Runner) -> None:
    loop = b"import time\nx = 0\nwhile True:\n    x += 1\n"
    out = run_auto(ARM_STACK_DUMP + "import learner\n", extra_files={"learner.py": loop},
                   limits=Limits(wall_s=LoadBudget().limit(2.0)))
    assert out.termination == "timeout"
    assert out.stack_dump is not None
    assert re.search(r'learner\.py", line [34] in <module>', out.stack_dump), out.stack_dump


def test_timeout_without_a_stack_dump_handler(run_auto: Runner) -> None:
    # SIGUSR1 kills an unprepared child outright; still a timeout, with no dump.
    budget = LoadBudget()
    out = run_auto("while True: pass", limits=Limits(wall_s=budget.limit(0.5)))
    assert out.termination == "timeout"
    assert out.stack_dump is None
    assert out.wall_s < budget.bound(3.0)


# A child whose start-up (everything before its first result frame) is slow: the grading
# child's imports. The sleep stands for that work; nothing is measured by it.
_SLOW_START = """\
import os, struct, time
time.sleep({delay})
fd = int(os.environ["SYNCGRADE_CHANNEL_FD"])
os.write(fd, struct.pack(">I", 5) + b"hello")
"""


def test_the_wall_limit_counts_from_the_first_frame_after_a_start_up(run: Runner) -> None:
    limit = LoadBudget().limit(1.0)  # time for the child to exit after its frame
    delay = limit + 0.5  # a start-up longer than the whole limit
    out = run(_SLOW_START.format(delay=delay), limits=Limits(wall_s=limit, startup_s=30))
    assert (out.termination, out.returncode, out.startup_timeout) == ("exited", 0, False)
    assert out.frames == [b"hello"]
    assert out.wall_s >= delay
    assert 0 <= out.clock_s < limit and out.clock_s <= out.wall_s - delay
    wall = out.protection("wall-limit")
    assert wall is not None and "start-up: 30 s" in wall.detail, wall


def test_without_a_start_up_budget_the_wall_limit_counts_from_spawn(run: Runner) -> None:
    # A start-up far past the limit, so that no load lets the frame come before it.
    out = run(_SLOW_START.format(delay=30), limits=Limits(wall_s=1.0))
    assert (out.termination, out.startup_timeout, out.frames) == ("timeout", False, [])
    assert out.clock_s == out.wall_s


def test_code_after_the_first_frame_still_times_out_at_the_wall_limit(run: Runner) -> None:
    budget = LoadBudget()
    limit, grace = budget.limit(1.0), budget.limit(5.0)
    out = run(ARM_STACK_DUMP + _SLOW_START.format(delay=1.5) + "while True:\n    pass\n",
              limits=Limits(wall_s=limit, startup_s=30, stack_grace_s=grace))
    assert (out.termination, out.startup_timeout) == ("timeout", False)
    assert out.frames == [b"hello"]
    # Counted from the frame, not from spawn; the dump ends the grace period early.
    assert limit <= out.clock_s < limit + min(budget.bound(0.9), 0.9 * grace), out.clock_s
    assert out.wall_s >= 1.5 + limit
    assert out.stack_dump is not None
    assert re.search(r'main\.py", line [89] in <module>', out.stack_dump), out.stack_dump


class _SteppingClock(FakeClock):
    """A fake clock that moves ``step`` seconds each time it is read: a deadline ``n``
    steps away passes after ``n`` reads, however slowly a loaded machine reads it."""

    def __init__(self, step: float) -> None:
        super().__init__(start=time.monotonic())  # near the real one: a run begun
        self.step = step                          # before or after the test is not thrown

    def monotonic(self) -> float:
        with self._lock:
            self.now += self.step
            return self.now


def test_a_start_up_past_its_budget_is_a_start_up_timeout(run: Runner) -> None:
    # The start-up budget, the stack-dump grace and the stop are the sandbox's own
    # arithmetic on the grader's clock (syncgrade.timing), so they run on a fake one: the
    # run's wall time is counted in its reads, not in this machine's load.
    limits = Limits(wall_s=30, startup_s=5.0, stack_grace_s=1)
    with use_clock(_SteppingClock(step=0.25)):
        out = run(_SLOW_START.format(delay=60), limits=limits)
    assert (out.termination, out.startup_timeout, out.frames) == ("timeout", True, [])
    assert out.clock_s == 0.0  # no frame: none of the wall limit was used
    # At least the whole start-up budget; at most it, the dump's grace and the two stop
    # graces (2 s each), plus the steps of the reads each phase makes past its deadline
    # (its first, and one per chunk a pipe gives at once): never the 30 s wall limit.
    startup = limits.startup_s or 0.0
    assert startup <= out.wall_s <= startup + 1 + 2 * 2 + 2, out.wall_s


def test_address_space_exhaustion_is_memory(run: Runner) -> None:
    out = run("buf = bytearray(2 * 2**30)", limits=Limits(wall_s=10, memory_bytes=512 * 2**20))
    assert out.termination == "memory"
    assert out.returncode == 1
    assert "MemoryError" in out.stderr_flags


def test_cpu_limit_is_cpu_not_timeout(run_auto: Runner) -> None:
    # A loaded machine gives the child a fraction of a core: its 1 CPU second may take
    # ten on the wall, and the wall limit must not win that race.
    budget = LoadBudget()
    out = run_auto("while True: pass", limits=Limits(wall_s=budget.limit(20), cpu_s=1))
    assert (out.termination, out.signal_name) == ("cpu", "SIGXCPU")
    # Stopped at its CPU second, not by the wall clock (the rlimit counts the whole process,
    # the start-up included, so the CPU time measured of the loop may be a little under 1).
    assert out.cpu_s is not None and 0.5 <= out.cpu_s < 2.0
    assert out.wall_s < budget.bound(5)


def test_file_size_limit_stops_big_writes(run: Runner) -> None:
    out = run(
        """
        import errno
        try:
            with open("big.bin", "wb") as f:
                f.write(b"x" * (2 * 2**20))
            print("written")
        except OSError as e:
            print(errno.errorcode[e.errno])
        """,
        limits=Limits(wall_s=10, file_bytes=2**20),
    )
    assert out.applied("file-size-limit")
    assert out.stdout.text == "EFBIG\n"


class _SteppingAfterFirstFrame(_SteppingClock):
    """A :class:`_SteppingClock` that stands still until :attr:`moving` is set (at the
    run's first bytes on its channel): the child's start-up, however long a loaded
    machine makes it, spends none of the run's deadline, which then passes after a fixed
    number of reads. The pump reads the clock every 20 ms of real time while it waits, so
    on a stepping clock alone a start-up longer than 20 reads (0.4 s, at load 15-18 in a
    CI run) already ran into the deadline."""

    def __init__(self, step: float) -> None:
        super().__init__(step)
        self.moving = False

    def monotonic(self) -> float:
        with self._lock:
            if self.moving:
                self.now += self.step
            return self.now


def test_the_callers_deadline_cuts_a_run_short_and_says_so(
        run: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Limits.end_s`` caps start-up and wall time together: a child still running then,
    before its own wall limit, is stopped without a stack dump and ``cut_short``; one
    that reaches its wall limit first is a plain timeout (on the stepping clock: counted
    in reads from the first frame, not in this machine's load)."""
    looping = ARM_STACK_DUMP + _SLOW_START.format(delay=0) + "while True:\n    pass\n"
    clock = _SteppingAfterFirstFrame(step=0.25)
    feed = FrameDecoder.feed

    def feed_and_start_the_clock(self: FrameDecoder, chunk: bytes) -> None:
        clock.moving = clock.moving or bool(chunk)
        feed(self, chunk)

    monkeypatch.setattr(FrameDecoder, "feed", feed_and_start_the_clock)
    with use_clock(clock):
        cut = run(looping, limits=Limits(wall_s=30, startup_s=30, end_s=5.0,
                                         stack_grace_s=1))
        clock.moving = False  # the next run's start-up costs nothing either
        own = run(looping, limits=Limits(wall_s=2.0, startup_s=30, end_s=30,
                                         stack_grace_s=1))
    assert (cut.termination, cut.cut_short, cut.startup_timeout) == ("timeout", True, False)
    assert cut.stack_dump is None and cut.frames == [b"hello"]
    assert 5.0 <= cut.wall_s < 30, cut.wall_s  # the deadline, never the 30 s limit
    assert (own.termination, own.cut_short) == ("timeout", False)
    wall = cut.protection("wall-limit")
    assert wall is not None and "the whole run within 5.0 s" in wall.detail, wall
