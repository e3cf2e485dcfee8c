"""However a grade ends (a grader fault, an exception or Ctrl-C in the parent mid-run, a
child that locked its files), nothing is left in the temp directory and no child process
keeps running."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from process_support import LoadBudget, processes_inside

import syncgrade
from syncgrade.sandbox import Limits, Pump, RunDir, run_sandboxed

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"


@pytest.fixture
def tmp_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private temp directory for the run directories of this test."""
    base = tmp_path / "tmp"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


def test_a_grader_fault_after_the_run_leaves_nothing(tmp_base: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug in the engine")

    monkeypatch.setattr("syncgrade.grading.pipeline.read_frames", broken)
    report = syncgrade.grade("exercise-1", SOLUTION, timeout=20)
    assert (report.grading.internal_error or "").startswith("internal error: ZeroDivision")
    assert list(tmp_base.iterdir()) == []


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_exception_in_the_parent_mid_run_kills_the_child_and_cleans_up(
        tmp_base: Path, monkeypatch: pytest.MonkeyPatch, error: type[BaseException]) -> None:
    real_run = Pump.run
    budget = LoadBudget()
    # By then the child has locked its files and sleeps (idle: well within 1.5 s).
    interrupt_at = time.monotonic() + budget.limit(1.5)

    def interrupted(self: Pump, until: float, stop: Callable[[], bool]) -> bool:
        def stop_or_raise() -> bool:
            if time.monotonic() > interrupt_at:
                raise error("interrupted")
            return stop()

        return real_run(self, until, stop_or_raise)

    monkeypatch.setattr(Pump, "run", interrupted)
    source = ("import os, time\nos.makedirs('locked/deeper')\nos.chmod('locked', 0)\n"
              "open('ro', 'w').close(); os.chmod('ro', 0o400)\ntime.sleep(30)\n")
    started = time.monotonic()
    with pytest.raises(error):
        run_sandboxed([sys.executable, "main.py"], files={"main.py": source.encode()},
                      limits=Limits(wall_s=budget.limit(20)))
    # Raised mid-run, not at the wall limit.
    assert time.monotonic() - started < min(budget.bound(10), budget.limit(20))
    assert list(tmp_base.iterdir()) == []
    assert processes_inside(tmp_base) == []


def test_an_interrupt_while_creating_the_run_directory_leaves_nothing(
        tmp_base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_mkdir = Path.mkdir

    def interrupted(self: Path, mode: int = 0o777, parents: bool = False,
                    exist_ok: bool = False) -> None:
        if self.name == "jail":
            raise KeyboardInterrupt
        real_mkdir(self, mode, parents, exist_ok)

    monkeypatch.setattr(Path, "mkdir", interrupted)
    with pytest.raises(KeyboardInterrupt):
        RunDir()
    assert list(tmp_base.iterdir()) == []


def test_a_bad_file_name_leaves_nothing(tmp_base: Path) -> None:
    with pytest.raises(ValueError):
        run_sandboxed([sys.executable, "-c", "pass"], files={"../escape": b""})
    assert list(tmp_base.iterdir()) == []


def test_a_child_that_locks_everything_leaves_nothing(tmp_base: Path) -> None:
    source = """
import os
os.makedirs("a/b/c")
open("a/b/c/f", "w").close()
os.chmod("a/b/c/f", 0)
os.chmod("a/b/c", 0)
os.chmod("a/b", 0o500)
os.symlink("/etc/passwd", "a/link")
os.chmod("a", 0)
os.chmod(".", 0o500)
os.chmod("tmp", 0)
"""
    for isolation in ("auto", "basic"):
        out = run_sandboxed([sys.executable, "main.py"], files={"main.py": source.encode()},
                            limits=Limits(wall_s=20), isolation=isolation)
        assert out.returncode == 0, out.stderr.text
        assert list(tmp_base.iterdir()) == []
    assert os.stat("/etc/passwd").st_mode & 0o777 == 0o644
