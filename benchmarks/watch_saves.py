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
report states them. Each save's line shows the floor measured just before it and the
grade's ratio to that floor; the summary prints the medians side by side with the
floor's, each as a ratio of it, and the p90 of the per-save ratios (target: the repeat
grade <= 0.3 x floor). It fails when any save was not graded warm (the daemon stopped)
or the daemon did not serve every grade.

``--baseline SRC``: the same, in the same run, for the syncgrade sources in ``SRC``
(a folder holding ``src/syncgrade``, e.g. ``git archive main | tar -x -C SRC``), run
with ``PYTHONPATH=SRC/src`` beside this checkout's: a second ``grade watch`` and daemon
of their own, the two sides' saves alternating (which side goes first alternates too),
each after its own floor, so that machine load hits both alike.

    .venv/bin/python benchmarks/watch_saves.py [--saves 20] [--baseline SRC]

This process never imports jax (only the children do).
"""

from __future__ import annotations

import argparse
import json
import math
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
from dataclasses import dataclass, field
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


PING = ("from syncgrade import daemon; import json; "
        "print(json.dumps(daemon.call({'op': 'ping'}, 30)))")
"""A ping of the side's daemon from a process of the side's own syncgrade (its identity,
and so its socket, is that installation's)."""


def _ping(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PING], env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"no daemon answered: {done.stderr[-400:]}")
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def _warm_child(env: dict[str, str]) -> None:
    """Wait until the daemon has a warm child (a learner's pause between saves)."""
    deadline = time.monotonic() + LIMIT_S
    while int(str(_ping(env)["warm_children"])) < 1:
        if time.monotonic() > deadline:
            raise SystemExit("the daemon's pool did not fill in time")
        time.sleep(0.05)


def _save(path: Path, text: str) -> None:
    """Save ``path`` as many editors do, in one step (a new file renamed over it): a
    plain write truncates first, and at load 30 ``grade watch`` once graded the empty
    file in between, then the whole one (two grades for one save)."""
    draft = path.with_name(f".{path.name}.saving")
    draft.write_text(text)
    os.replace(draft, path)


def _cpu_s(pid: int) -> float:
    """The CPU seconds (user + system) process ``pid`` has used itself (Linux)."""
    with open(f"/proc/{pid}/stat", "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _floor() -> float:
    start = time.perf_counter()
    subprocess.run(FLOOR, check=True, capture_output=True)
    return time.perf_counter() - start


@dataclass
class Side:
    """One syncgrade under test: its ``grade watch`` in a workspace of its own, and its
    figures, one of each per save."""

    label: str
    folder: Path
    mine: Path
    env: dict[str, str]
    versions: list[str]
    watch: subprocess.Popen[str] | None = None
    lines: Lines | None = None
    floor: list[float] = field(default_factory=list)
    waited: list[float] = field(default_factory=list)
    graded: list[float] = field(default_factory=list)
    answered: list[float] = field(default_factory=list)
    """The daemon's own wall seconds for each grade request, read to answered (its
    ``last_grade_s``, to the microsecond; the report says the grade's to 0.1 s). Empty
    for a syncgrade whose daemon does not say."""
    cpu: list[float] = field(default_factory=list)
    """The daemon process's own CPU seconds for each save's grade (its children not
    included): the grader's work, which machine load inflates far less than wall time."""

    def start(self) -> None:
        self.mine.write_text(self.versions[0])
        self.watch = subprocess.Popen(
            [sys.executable, "-m", "syncgrade.cli", "watch", "exercise-1"], cwd=self.folder,
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.lines = Lines(self.watch)
        self.lines.until("Watching exercises/exercise-1/submission.py")  # the first grade

    def save(self, save: int) -> None:
        """One floor, a pause until a warm child, one save and its report."""
        assert self.lines is not None
        self.floor.append(_floor())
        _warm_child(self.env)
        pid = int(str(_ping(self.env)["pid"]))
        before = _cpu_s(pid)
        saved = time.perf_counter()
        _save(self.mine, self.versions[save % 2] + f"# save {save}\n")
        stamp, _, seen = self.lines.until(END)
        text = "".join(seen)
        if "NOT YET" not in text:
            raise SystemExit(f"{self.label}, save {save}: not the report expected:\n{text}")
        warm = WARM.search(" ".join(text.split()))
        if warm is None:
            raise SystemExit(f"{self.label}, save {save} was graded cold (the daemon "
                             f"stopped):\n{text}")
        self.cpu.append(_cpu_s(pid) - before)
        answered = _ping(self.env).get("last_grade_s")
        if isinstance(answered, float):
            self.answered.append(answered)
        self.waited.append(stamp - saved)
        self.graded.append(float(warm.group(1)))
        self.lines.until("Watching exercises/exercise-1/submission.py")
        print(f"  {self.label:>8} save {save:2}: floor {self.floor[-1]:.2f} s   graded in "
              f"{self.graded[-1]:.2f} s (warm) = {self.graded[-1] / self.floor[-1]:.2f} x   "
              f"save to report {self.waited[-1]:.2f} s   daemon CPU "
              f"{self.cpu[-1] * 1e3:.0f} ms" + (
                  f"   answered in {self.answered[-1]:.3f} s = "
                  f"{self.answered[-1] / self.floor[-1]:.3f} x"
                  if len(self.answered) == len(self.graded) else ""), flush=True)

    def stop(self, saves: int) -> None:
        served = int(str(_ping(self.env)["grades"])) if self.watch is not None else 0
        if self.watch is not None:
            self.watch.send_signal(signal.SIGINT)
            try:
                self.watch.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.watch.kill()
        subprocess.run([sys.executable, "-m", "syncgrade.cli", "daemon", "stop"],
                       env=self.env, capture_output=True, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)
        if served != saves + 1:
            raise SystemExit(f"{self.label}: the daemon served {served} grades, "
                             f"not {saves + 1}")


def _side(label: str, source: Path | None) -> Side:
    folder = Path(tempfile.mkdtemp(prefix="syncgrade-bench-watch-"))
    mine, env = _workspace(folder)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(source / "src"), *filter(None, [env.get("PYTHONPATH", "")])])
    course = folder / "exercises" / "exercise-1"
    versions = [(course / "stub.py").read_text(),
                (course / "corpus" / "flawed" / "no_wait.py").read_text()]
    return Side(label, folder, mine, env, versions)


def measure(saves: int, baseline: Path | None = None) -> list[Side]:
    """Each side's floor, save to report and the grade's own seconds, one per save: this
    checkout's, and ``baseline``'s when given, saves alternating."""
    sides = [_side("this", None)] + ([_side("baseline", baseline)] if baseline else [])
    try:
        for side in sides:
            side.start()
        _floor()  # the OS file cache, warm for the floor too
        for save in range(1, saves + 1):
            order = sides if save % 2 else sides[::-1]
            for side in order:
                side.save(save)
    finally:
        for side in sides:
            side.stop(saves)
    return sides


def _summary(side: Side) -> None:
    f, w, g = (statistics.median(v) for v in (side.floor, side.waited, side.graded))
    ratios = sorted(g / f for g, f in zip(side.graded, side.floor, strict=True))
    p90 = ratios[min(len(ratios) - 1, math.ceil(0.9 * len(ratios)) - 1)]
    from syncgrade.cli.watch import POLL_S, SETTLE_S

    print(f"{side.label}: floor median {f:.2f} s | repeat grade through grade watch "
          f"(warm on all {len(side.graded)} saves) median {g:.2f} s = {g / f:.2f} x floor, "
          f"p90 of the per-save ratios {p90:.2f} x (target <= 0.3): "
          f"{'PASS' if g / f <= 0.3 else 'FAIL'} | save to report (+ watch's {POLL_S:g} s "
          f"poll and {SETTLE_S:g} s settle) median {w:.2f} s = {w / f:.2f} x floor | "
          f"the daemon's own CPU per grade median {statistics.median(side.cpu) * 1e3:.0f} ms")
    if side.answered and len(side.answered) == len(side.graded):
        a = statistics.median(side.answered)
        ratios = sorted(x / y for x, y in zip(side.answered, side.floor, strict=True))
        p90 = ratios[min(len(ratios) - 1, math.ceil(0.9 * len(ratios)) - 1)]
        print(f"{side.label}: the daemon's own wall per grade request (staleness check, "
              f"grade, rendering) median {a:.3f} s = {a / f:.3f} x floor, p90 {p90:.3f} x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another syncgrade's sources (SRC/src/syncgrade), measured "
                             "in the same run, saves alternating")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    sides = measure(args.saves, args.baseline)
    for side in sides:
        _summary(side)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; "
          f"jax imported by this process: {'jax' in sys.modules}")


if __name__ == "__main__":
    main()
