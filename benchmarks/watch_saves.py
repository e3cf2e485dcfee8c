"""A repeat grade through ``grade watch`` as the README runs it (issue 35 item 2), measured
side by side with the floor of benchmarks/grading_speed.py (a fresh ``python -c "import
jax"`` plus one jitted call).

The README's layout: the course is a folder ``exercises/`` and the learner's file is
``exercises/exercise-1/submission.py`` inside it, beside the course's own files. The
benchmark copies ``exercises/`` and ``solutions/`` to a temporary folder (the checkout is
never touched), names the copy with ``SYNCGRADE_COURSE``, writes the stub as the
submission, and runs ``grade watch exercise-1`` there, which starts the grader daemon.
Then ``--saves`` times: a floor process, a pause until the daemon has a warm child (a
learner reads the report between saves), and a save of the submission (the stub and a
flawed corpus file in turn, never full marks, so ``grade watch`` stays on exercise-1).

For each save it takes the time from the save to the report's last line (what the
learner waits: ``grade watch``'s poll and settle, :data:`~syncgrade.cli.watch.POLL_S` and
:data:`~syncgrade.cli.watch.SETTLE_S`, plus the grade) and the grade's own seconds as the
report states them. It prints their medians, each as a ratio of the floor's (target:
the repeat grade <= 0.3 x floor), and fails when any save was not graded warm (the
daemon stopped) or the daemon did not serve every grade.

    .venv/bin/python benchmarks/watch_saves.py [--saves 20]

This process never imports jax (only the children do).
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = [sys.executable, "-c",
         "import jax, jax.numpy as jnp; "
         "jax.jit(lambda x: jnp.tanh(x @ x))(jnp.ones((64, 64))).block_until_ready()"]
WARM = re.compile(r"\(graded in ([0-9.]+) s by the warm grader\)")
END = re.compile(r"(grader|start-up)\)$")
"""The end of a report's verdict line, warm or cold (it may wrap before it)."""
LIMIT_S = 600.0


class Lines:
    """``grade watch``'s stdout, line by line, on a thread, each with the time it came."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[tuple[float, str] | None] = queue.Queue()
        assert process.stdout is not None
        stream = process.stdout

        def pump() -> None:
            for line in stream:
                self.queue.put((time.perf_counter(), line))
            self.queue.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def until(self, pattern: re.Pattern[str] | str) -> tuple[float, str, list[str]]:
        """The time and text of the first line matching ``pattern``, and the lines
        before it."""
        seen: list[str] = []
        while True:
            item = self.queue.get(timeout=LIMIT_S)
            if item is None:
                raise SystemExit("grade watch ended:\n" + "".join(seen))
            stamp, line = item
            seen.append(line)
            if (pattern.search(line) if isinstance(pattern, re.Pattern) else pattern in line):
                return stamp, line, seen


def _workspace(folder: Path) -> tuple[Path, dict[str, str]]:
    """The README's layout in ``folder``; the environment ``grade`` runs with there."""
    for name in ("exercises", "solutions"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns(
            "__pycache__", "submission.py"))
    env = {**os.environ, "NO_COLOR": "1", "SYNCGRADE_COURSE": str(folder / "exercises"),
           "SYNCGRADE_DAEMON_DIR": str(folder / "daemon"),
           "XDG_STATE_HOME": str(folder / "state")}
    env.pop("SYNCGRADE_WARM_POOL", None)
    return folder / "exercises" / "exercise-1" / "submission.py", env


def _warm_child(env: dict[str, str]) -> None:
    """Wait until the daemon has a warm child (a learner's pause between saves)."""
    from syncgrade import daemon

    os.environ.update({k: env[k] for k in ("SYNCGRADE_COURSE", "SYNCGRADE_DAEMON_DIR")})
    deadline = time.monotonic() + LIMIT_S
    while daemon.call({"op": "ping"}, 30)["warm_children"] < 1:
        if time.monotonic() > deadline:
            raise SystemExit("the daemon's pool did not fill in time")
        time.sleep(0.05)


def _floor() -> float:
    start = time.perf_counter()
    subprocess.run(FLOOR, check=True, capture_output=True)
    return time.perf_counter() - start


def measure(saves: int) -> tuple[list[float], list[float], list[float]]:
    """(floor, save to report, the grade's own seconds), one of each per save."""
    folder = Path(tempfile.mkdtemp(prefix="syncgrade-bench-watch-"))
    mine, env = _workspace(folder)
    course = folder / "exercises" / "exercise-1"
    versions = [(course / "stub.py").read_text(),
                (course / "corpus" / "flawed" / "no_wait.py").read_text()]
    mine.write_text(versions[0])
    watch = subprocess.Popen([sys.executable, "-m", "syncgrade.cli", "watch", "exercise-1"],
                             cwd=folder, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    floor, waited, graded = [], [], []
    try:
        lines = Lines(watch)
        lines.until("Watching exercises/exercise-1/submission.py")  # the first grade
        _floor()  # the OS file cache, warm for the floor too
        for save in range(1, saves + 1):
            floor.append(_floor())
            _warm_child(env)
            saved = time.perf_counter()
            mine.write_text(versions[save % 2] + f"# save {save}\n")
            stamp, _, seen = lines.until(END)
            text = "".join(seen)
            if "NOT YET" not in text:
                raise SystemExit(f"save {save}: not the report expected:\n{text}")
            warm = WARM.search(" ".join(text.split()))
            if warm is None:
                raise SystemExit(f"save {save} was graded cold (the daemon stopped):\n{text}")
            waited.append(stamp - saved)
            graded.append(float(warm.group(1)))
            lines.until("Watching exercises/exercise-1/submission.py")
            print(f"  save {save:2}: floor {floor[-1]:.2f} s   save to report "
                  f"{waited[-1]:.2f} s   graded in {graded[-1]:.2f} s (warm)", flush=True)
        from syncgrade import daemon

        served = daemon.call({"op": "ping"}, 30)["grades"]
        if served != saves + 1:
            raise SystemExit(f"the daemon served {served} grades, not {saves + 1}")
    finally:
        watch.send_signal(signal.SIGINT)
        try:
            watch.wait(timeout=60)
        except subprocess.TimeoutExpired:
            watch.kill()
        subprocess.run([sys.executable, "-m", "syncgrade.cli", "daemon", "stop"], env=env,
                       capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)
    return floor, waited, graded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    floor, waited, graded = measure(args.saves)
    f, w, g = (statistics.median(v) for v in (floor, waited, graded))
    print(f"floor (import jax + 1 jit call), median of {len(floor)}: {f:.2f} s")
    print(f"repeat grade through grade watch (the daemon's, warm on all {len(graded)} "
          f"saves): median {g:.2f} s = {g / f:.2f} x floor (target <= 0.3): "
          f"{'PASS' if g / f <= 0.3 else 'FAIL'}")
    from syncgrade.cli.watch import POLL_S, SETTLE_S

    print(f"save to report (+ watch's {POLL_S:g} s poll and {SETTLE_S:g} s settle): "
          f"median {w:.2f} s = "
          f"{w / f:.2f} x floor")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; "
          f"jax imported by this process: {'jax' in sys.modules}")


if __name__ == "__main__":
    main()
