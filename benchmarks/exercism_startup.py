"""Exercism's test runner under load (issue 36): how long ``bin/run.sh`` takes to start its
grading child, and in all, on the reference solution with Exercism's default limits.

Each run copies ``solutions/EXERCISE/solution.py`` into a fresh solution folder as
``submission.py``, runs ``bin/run.sh EXERCISE INPUT_DIR OUTPUT_DIR`` with this
interpreter (``SYNCGRADE_PYTHON``), and records

- *child*: seconds from the start of ``run.sh`` until the first process below it runs
  ``python -m syncgrade.child`` (the sandboxed grading child, which imports jax), found by
  polling ``/proc`` every 20 ms (so up to 20 ms late);
- *total*: seconds until ``run.sh`` exits (Exercism stops a runner at 20 s);
- the ``results.json`` status (``pass`` for the reference solution, ``error`` for a grader
  fault) and, for an ``error``, the last line of the staff log (why).

``--baseline DIR`` interleaves runs of another version of syncgrade (a ``src`` folder
with ``exercises/`` and ``solutions/`` beside it, put first on ``PYTHONPATH``; its child
runs from there too), run for run, so both see the same load.

``--hogs K`` starts K processes spinning on the CPU (``python3 -c 'while True: pass'``)
for the duration, and kills them by pid afterwards, to load a small machine to about
K + what else runs (the load average before and after each run is printed). Each hog is
started in a session of its own, as independent jobs are; with the kernel's autogroup
scheduling (``/proc/sys/kernel/sched_autogroup_enabled``) that gives each one a
session's share, as it gives ``run.sh``. ``--hogs-in-session`` starts them in this
session instead, where they share this session's one share with ``run.sh`` and the
entry point (the sandboxed child has a session of its own): a far harsher load for the
entry point than the load average says. ``--hogs-one-session`` starts them all in one
new session (one job of K processes, as ``make -jK`` from another shell is): the same
load average, a far milder load for everything else (docs/platforms.md, "At load 20, in
two shapes"); they are stopped by their process group. Linux only.

    .venv/bin/python benchmarks/exercism_startup.py [--runs 5] [--hogs 12] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD_MARK = b"syncgrade.child"


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (by the parent links in ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def runs_child(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return CHILD_MARK in handle.read()
    except OSError:
        return False


def one_run(exercise: str, python: str, src: str | None = None) -> dict[str, object]:
    """One ``run.sh`` of the reference solution: its child-start and total seconds."""
    with tempfile.TemporaryDirectory(prefix="exercism-startup-") as tmp:
        solution, output = Path(tmp) / "solution", Path(tmp) / "output"
        solution.mkdir()
        shutil.copy(ROOT / "solutions" / exercise / "solution.py", solution / "submission.py")
        env = {**os.environ, "SYNCGRADE_PYTHON": python}
        if src is not None:
            env["PYTHONPATH"] = src
        load = os.getloadavg()[0]
        start = time.monotonic()
        proc = subprocess.Popen(["bash", str(ROOT / "bin" / "run.sh"), exercise,
                                 str(solution), str(output)], env=env,
                                stdout=(Path(tmp) / "log").open("wb"),
                                stderr=subprocess.STDOUT)
        child_at = None
        while proc.poll() is None:
            if child_at is None and any(runs_child(p) for p in descendants(proc.pid)):
                child_at = time.monotonic() - start
            time.sleep(0.02)
        total = time.monotonic() - start
        results = json.loads((output / "results.json").read_text(encoding="utf-8"))
        log = (Path(tmp) / "log").read_text(encoding="utf-8", errors="replace").splitlines()
    return {"child": child_at, "total": total, "status": results["status"],
            "message": (log[-1] if log else "")[:200], "load": load,
            "load_after": os.getloadavg()[0]}


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hogs", type=int, default=0)
    parser.add_argument("--hogs-in-session", action="store_true")
    parser.add_argument("--hogs-one-session", action="store_true")
    parser.add_argument("--exercise", default="exercise-1")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--baseline", metavar="DIR", help="another syncgrade src folder")
    args = parser.parse_args()
    spin = f"{shlex.quote(sys.executable)} -c 'while True: pass'"
    hogs = [subprocess.Popen(["bash", "-c", f"for i in $(seq {args.hogs}); do {spin} & "
                              "done; wait"], start_new_session=True)
            ] if args.hogs_one_session and args.hogs else [
        subprocess.Popen([sys.executable, "-c", "while True: pass"],
                         start_new_session=not args.hogs_in_session)
        for _ in range(args.hogs)]
    variants = {"this": None, **({"baseline": args.baseline} if args.baseline else {})}
    rows: dict[str, list[dict[str, object]]] = {name: [] for name in variants}
    try:
        if hogs:
            time.sleep(30)  # let the load average climb first
        for i in range(args.runs):
            for name, src in variants.items():
                row = one_run(args.exercise, args.python, src)
                rows[name].append(row)
                report(f"{name} run {i + 1}", row)
    finally:
        for hog in hogs:  # only the processes started here, by pid or their group
            if args.hogs_one_session:
                os.killpg(hog.pid, signal.SIGKILL)
            else:
                hog.kill()
            hog.wait()
    for name, found in rows.items():
        childs = [float(r["child"]) for r in found if r["child"] is not None]  # type: ignore[arg-type]
        totals = [float(r["total"]) for r in found]  # type: ignore[arg-type]
        passed = sum(r["status"] == "pass" for r in found)
        print(f"{name}: median child at {median(childs)} s, total {median(totals)} s; "
              f"{passed}/{len(found)} pass; hogs {args.hogs}")
    return 0


def report(what: str, row: dict[str, object]) -> None:
    child = "-" if row["child"] is None else f"{row['child']:.2f}"
    print(f"{what}: child at {child} s, total {row['total']:.2f} s, "
          f"{row['status']} (load {row['load']:.1f} -> {row['load_after']:.1f})"
          + (f": {row['message']}" if row["status"] == "error" else ""),
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
