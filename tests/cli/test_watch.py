"""`grade watch` as a learner runs it (issue 27): a real file edited on disk, the report
after each save (what the file printed shown inert, issue 33), the next exercise handed
out at full marks, Ctrl-C without a traceback.

Two grades (the flawed file, then the fixed one), cold, in the watching process
(``--no-daemon``: the daemon has tests of its own in test_daemon.py). Every wait is for an
event (a line of output), bounded by a generous limit scaled by the machine's load."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from process_support import LoadBudget

from syncgrade import progress
from syncgrade.courses import open_course

FORGED = "\x1b[2J\x1b[H\x1b[32mAll checks passed\x1b[0m\rPASSED"
"""A debug print that would clear the learner's terminal and show a forged verdict."""


class Lines:
    """A process's stdout, line by line, read on a thread so that waits can time out."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        assert process.stdout is not None
        stream = process.stdout

        def pump() -> None:  # every line, then None: the stream ended
            for line in stream:
                self._queue.put(line)
            self._queue.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def until(self, text: str, limit: float) -> list[str]:
        """The lines read up to and including the first that holds ``text``."""
        start = len(self.seen)
        while True:
            try:
                line = self._queue.get(timeout=limit)
            except queue.Empty:
                raise AssertionError(f"no {text!r} within {limit:.0f} s; output so far:\n"
                                     + "".join(self.seen)) from None
            if line is None:
                raise AssertionError(f"the process ended before {text!r}:\n"
                                     + "".join(self.seen))
            self.seen.append(line)
            if text in line:
                return self.seen[start:]


def test_watch_regrades_on_save_and_moves_on_at_full_marks(tmp_path: Path) -> None:
    course = open_course(None)
    files = course.folder("exercise-1")
    (flawed,) = [p for p in files.corpus_files("flawed") if p.name == "no_wait.py"]
    first, following = list(course.exercises)[:2]
    assert first == "exercise-1"
    mine = tmp_path / "exercises" / first / "submission.py"
    mine.parent.mkdir(parents=True)
    # Its debug print clears the screen and forges a verdict: shown, never obeyed.
    mine.write_text(flawed.read_text() + f"\nprint({FORGED!r})\n")
    state = tmp_path / "state"
    env = {**os.environ, "NO_COLOR": "1", "XDG_STATE_HOME": str(state)}
    budget = LoadBudget()
    watch = subprocess.Popen([sys.executable, "-m", "syncgrade.cli", "watch", "--no-daemon"],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        lines = Lines(watch)
        report = "".join(lines.until("Watching exercises/exercise-1/submission.py",
                                     budget.limit(180)))
        assert "NOT YET" in report and "✗ sync-before-stop" in report
        assert "  ␛[2J␛[H␛[32mAll checks passed␛[0m␍PASSED" in report
        assert "\x1b" not in report  # NO_COLOR: no escape at all, not even the view's
        mine.write_text(files.solution.read_text())  # the learner fixes it and saves
        report = "".join(lines.until(f"Watching exercises/{following}/submission.py",
                                     budget.limit(180)))
        assert "PASSED  score 13/13" in report and "NOT YET" not in report
        assert f"{first} is done. Next: {following} · " in report
        assert f"Read exercises/{following}/README.md, then edit " \
               f"exercises/{following}/submission.py." in report
        assert (tmp_path / "exercises" / following / "submission.py").read_text() == \
            course.folder(following).stub.read_text()  # handed out, as `grade start` does
        watch.send_signal(signal.SIGINT)  # Ctrl-C
        lines.until("Stopped watching.", budget.limit(60))  # the reader thread has stdout
        watch.wait(timeout=budget.limit(60))
        assert watch.stderr is not None
        err = watch.stderr.read()
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()
    assert watch.returncode == 0, err
    assert "Traceback" not in err, err
    done, note = progress.entries(course.root, state / "syncgrade" / "progress.json")
    assert note is None and done[first].done and done[first].score == done[first].max_score
    assert following not in done  # handed out, not graded yet


def test_watch_without_work_to_watch_says_what_to_run(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "syncgrade.cli", "watch", "--no-daemon"],
                          cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=LoadBudget().limit(120))
    assert done.returncode == 2
    assert done.stderr.startswith("grade: no exercises/exercise-1/submission.py here; run "
                                  "`grade start exercise-1` first")
    assert "Traceback" not in done.stderr
