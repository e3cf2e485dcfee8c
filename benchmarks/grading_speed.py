"""Grading speed (issue 10), measured side by side in one run on one machine.

Prints four figures against their targets:

1. cold CLI grade of the exercise-1 solution vs the floor (a fresh ``python -c "import
   jax"`` plus one jitted call), medians of interleaved runs, as a ratio (<= 1.5);
2. warm-pool grade latency of the same file (``grading.grade(..., pool=WarmPool(2))``,
   in this process, with a warm child available), median and p90 vs the floor (<= 0.3);
3. ``grade batch`` of 100 copies of exercise-1 corpus files with ``--jobs 2`` (<= 60 s);
4. instrumentation overhead: the warm median of a ~1 ms jitted kernel, timed with
   ``perf_counter`` and ``block_until_ready`` inside a graded (instrumented) child vs
   the same code in a plain sandboxed child, interleaved (<= 3 %);
5. a repeat CLI grade through the warm grader daemon (``grade exercise-1 SOLUTION``
   while ``grade daemon`` runs, issue 27) vs the floor, interleaved with it and with a
   cold CLI grade, as a ratio (<= 0.3).

    .venv/bin/python benchmarks/grading_speed.py [--runs 7] [--warm-runs 15]
                                                 [--batch 100] [--overhead-rounds 15]
    .venv/bin/python benchmarks/grading_speed.py --overhead-only  # figure 4 alone
    .venv/bin/python benchmarks/grading_speed.py --daemon-only    # figure 5 (and 1) alone

This process never imports jax (only the children do); it says so at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
CORPUS = COURSE / "exercise-1" / "corpus"
FLOOR = [sys.executable, "-c",
         "import jax, jax.numpy as jnp; "
         "jax.jit(lambda x: jnp.tanh(x @ x))(jnp.ones((64, 64))).block_until_ready()"]
COLD = [sys.executable, "-m", "syncgrade.cli", "exercise-1", str(SOLUTION), "--json"]
# (figure 1's cold grades run with SYNCGRADE_DAEMON=0: a daemon of the user's is not used)

# The ~1 ms kernel: the same text runs in both children; SIZE is calibrated once.
KERNEL = '''
import time
import jax
import jax.numpy as jnp
import numpy as np

def _kernel_median(size, reps=300):
    kernel = jax.jit(lambda a: jnp.tanh(a @ a))
    x = jax.device_put(np.ones((size, size), np.float32) * 0.01)
    x.block_until_ready()
    for _ in range(20):
        kernel(x).block_until_ready()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        kernel(x).block_until_ready()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[len(samples) // 2]
'''
PLAIN = KERNEL + '''
import sys
size = int(sys.argv[1])
if size == 0:  # calibrate: the smallest power-of-two-ish size whose median is >= 1 ms
    size = 64
    while _kernel_median(size, 50) < 1e-3 and size < 4096:
        size = int(size * 1.25)
print("MEDIAN", size, _kernel_median(size))
'''


def printed_on_first_call(expression: str) -> str:
    """An exercise-1 submission's ``synchronized_samples`` (the lesson's loop) that first
    prints ``expression`` (source text, evaluated in the graded child) on its first call:
    how a snippet runs inside a graded, instrumented child."""
    return f'''
_done = []

def synchronized_samples(fn, args, repeats):
    if not _done:
        _done.append(1)
        print({expression})
    samples, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
'''


GRADED = KERNEL + printed_on_first_call('"MEDIAN", SIZE, _kernel_median(SIZE)')


def plain_stdout(source: str, *args: str) -> str:
    """What ``source`` prints run as a plain script with ``args`` in the sandbox (no
    instrumentation)."""
    from syncgrade.sandbox import run_sandboxed

    return run_sandboxed([sys.executable, "bench.py", *args],
                         files={"bench.py": source.encode()}).stdout.text


def graded_stdout(source: str) -> str:
    """What ``source``, an exercise-1 submission, prints graded (instrumented)."""
    from syncgrade import grading

    report = grading.grade("exercise-1", source=source, display_name="bench.py")
    if report.cause != "graded":
        raise SystemExit(f"the instrumented snippet did not run: {report.summary}")
    return report.stdout.text


def _timed(argv: Sequence[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False,
                          env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({done.returncode}):\n"
                         f"{done.stderr[-2000:]}")
    return elapsed


def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def cold_vs_floor(runs: int) -> tuple[list[float], list[float]]:
    """Interleaved fresh processes: the floor, then a cold CLI grade, ``runs`` times."""
    env = {**os.environ, "SYNCGRADE_DAEMON": "0"}
    _timed(FLOOR)  # warm the OS file cache for both sides
    _timed(COLD, env)
    floor, cold = [], []
    for i in range(runs):
        floor.append(_timed(FLOOR))
        cold.append(_timed(COLD, env))
        print(f"  run {i + 1}: floor {floor[-1]:.2f} s   cold CLI grade {cold[-1]:.2f} s",
              flush=True)
    return floor, cold


def daemon_vs_floor(runs: int) -> tuple[list[float], list[float], list[float]]:
    """Interleaved fresh processes: the floor, a cold CLI grade (``SYNCGRADE_DAEMON=0``)
    and the same CLI grade through a warm grader daemon, ``runs`` times. The daemon runs
    in a folder of its own (and records progress in one), started as ``grade watch``
    starts it; before each triple its pool has a warm child, as after a learner's
    pause between saves."""
    from syncgrade import daemon

    folder = Path(tempfile.mkdtemp(prefix="syncgrade-bench-daemon-"))
    env = {**os.environ, daemon.DIR_ENV: str(folder / "daemon"),
           "XDG_STATE_HOME": str(folder / "state")}
    cold_env = {**env, daemon.USE_ENV: "0"}
    os.environ[daemon.DIR_ENV] = env[daemon.DIR_ENV]  # for this process's pings
    _timed([sys.executable, "-m", "syncgrade.cli", "daemon", "start"], env)
    floor, cold, warm = [], [], []
    try:
        _timed(COLD, env)  # the daemon's first grade imports the rubric's lazy parts
        for i in range(runs):
            _until(lambda: daemon.call({"op": "ping"}, 30)["warm_children"] >= 1, 300)
            floor.append(_timed(FLOOR))
            cold.append(_timed(COLD, cold_env))
            _until(lambda: daemon.call({"op": "ping"}, 30)["warm_children"] >= 1, 300)
            warm.append(_timed(COLD, env))
            print(f"  run {i + 1}: floor {floor[-1]:.2f} s   cold CLI grade {cold[-1]:.2f} s"
                  f"   through the daemon {warm[-1]:.3f} s", flush=True)
        served = daemon.call({"op": "ping"}, 30)["grades"]
        if served != runs + 1:
            raise SystemExit(f"the daemon served {served} grades, not {runs + 1}")
    finally:
        _timed([sys.executable, "-m", "syncgrade.cli", "daemon", "stop"], env)
        shutil.rmtree(folder, ignore_errors=True)
    return floor, cold, warm


def _print_daemon(floor: list[float], cold: list[float], warm: list[float]) -> None:
    f, c, w = (statistics.median(v) for v in (floor, cold, warm))
    print(f"floor (import jax + 1 jit call), median of {len(floor)}: {f:.2f} s")
    print(f"   cold CLI grade beside it: median {c:.2f} s = {c / f:.2f} x floor")
    print(f"5. repeat CLI grade through the daemon: median {w:.3f} s = {w / f:.2f} x floor, "
          f"p90 {_p90(warm):.3f} s = {_p90(warm) / f:.2f} x floor (target median <= 0.3): "
          f"{_verdict(w / f <= 0.3)}")


def warm_latency(runs: int) -> list[float]:
    """``grading.grade`` of the solution with a warm child available, ``runs`` times."""
    from syncgrade import grading
    from syncgrade.pool import WarmPool

    latencies = []
    with WarmPool(size=2, wait_s=120) as pool:
        for i in range(runs + 1):
            _until(lambda: pool.warm_children() >= pool.size, 300)
            start = time.perf_counter()
            report = grading.grade("exercise-1", SOLUTION, pool=pool)
            elapsed = time.perf_counter() - start
            if report.status != "passed":
                raise SystemExit(f"the solution did not pass in the pool: {report.summary}")
            if i:  # the first grade also imports the rubric's lazy parts
                latencies.append(elapsed)
                print(f"  warm grade {i}: {elapsed:.3f} s", flush=True)
        print(f"  pool: {pool.stats}")
    return latencies


def _until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("the warm pool did not fill in time")
        time.sleep(0.02)


def batch_throughput(count: int, jobs: int) -> tuple[float, str]:
    """``grade batch`` of ``count`` copies of exercise-1 corpus files (correct and
    flawed, cycled); (seconds, the batch's own summary line)."""
    sources = sorted((CORPUS / "correct").glob("*.py")) + sorted((CORPUS / "flawed").glob("*.py"))
    folder = Path(tempfile.mkdtemp(prefix="syncgrade-bench-"))
    try:
        for i in range(count):
            source = sources[i % len(sources)]
            shutil.copy(source, folder / f"s{i:03d}_{source.name}")
        argv = [sys.executable, "-m", "syncgrade.cli", "batch", str(folder), "--exercise",
                "exercise-1", "--jobs", str(jobs), "--out", str(folder / "reports.jsonl")]
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"grade batch failed ({done.returncode}): {done.stderr[-2000:]}")
        lines = (folder / "reports.jsonl").read_text().splitlines()
        if len(lines) != count or any(json.loads(line)["status"] == "error" for line in lines):
            raise SystemExit("grade batch did not grade every file")
        return elapsed, done.stderr.strip().splitlines()[-1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _median_line(text: str) -> tuple[int, float]:
    found = re.search(r"^MEDIAN (\d+) ([0-9.e-]+)$", text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"no kernel median in the child's output:\n{text[-2000:]}")
    return int(found[1]), float(found[2])


def _plain(size: int) -> tuple[int, float]:
    return _median_line(plain_stdout(PLAIN, str(size)))


def _instrumented(size: int) -> float:
    return _median_line(graded_stdout(GRADED.replace("SIZE", str(size))))[1]


def instrumentation_overhead(rounds: int) -> tuple[int, list[float], list[float]]:
    """Each round: one plain and one instrumented child, back to back, in alternating
    order (odd rounds plain first, even rounds instrumented first), so that a machine
    getting busier or quieter during a round, or whatever the first child of a pair
    leaves behind (page cache, CPU frequency), does not favour one side."""
    size, _ = _plain(0)
    _instrumented(size)  # the first grade also makes the exercise's hidden data: unmeasured
    plain, instrumented = [], []
    for i in range(rounds):
        if i % 2 == 0:
            plain.append(_plain(size)[1])
            instrumented.append(_instrumented(size))
        else:
            instrumented.append(_instrumented(size))
            plain.append(_plain(size)[1])
        print(f"  round {i + 1} ({'plain' if i % 2 == 0 else 'instrumented'} first): "
              f"plain {plain[-1] * 1e3:.3f} ms   instrumented {instrumented[-1] * 1e3:.3f} ms"
              f"   {(instrumented[-1] / plain[-1] - 1) * 100:+.1f} %", flush=True)
    return size, plain, instrumented


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="cold/floor pairs")
    parser.add_argument("--warm-runs", type=int, default=15, help="warm-pool grades")
    parser.add_argument("--batch", type=int, default=100, help="files in the batch (0: skip)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--overhead-rounds", type=int, default=15,
                        help="plain/instrumented child pairs for figure 4 (each ~3 s)")
    parser.add_argument("--overhead-only", action="store_true",
                        help="measure figure 4 (instrumentation overhead) only")
    parser.add_argument("--daemon-runs", type=int, default=7,
                        help="floor/cold/daemon triples for figure 5")
    parser.add_argument("--daemon-only", action="store_true",
                        help="measure figure 5 (with the floor and a cold grade) only")
    args = parser.parse_args()
    os.environ.pop("SYNCGRADE_WARM_POOL", None)  # measure exactly what is named
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    if args.overhead_only:
        _print_overhead(*instrumentation_overhead(args.overhead_rounds))
        return
    if args.daemon_only:
        _print_daemon(*daemon_vs_floor(args.daemon_runs))
        print(f"load average at the end: {os.getloadavg()[0]:.2f}; "
              f"jax imported by this process: {'jax' in sys.modules}")
        return

    print("1. cold CLI grade vs floor")
    floor, cold = cold_vs_floor(args.runs)
    f, c = statistics.median(floor), statistics.median(cold)
    print("2. warm-pool grade latency")
    warm = warm_latency(args.warm_runs)
    w, w90 = statistics.median(warm), _p90(warm)
    batch: tuple[float, str] | None = None
    if args.batch:
        print(f"3. grade batch of {args.batch} with --jobs {args.jobs}")
        batch = batch_throughput(args.batch, args.jobs)
        print(f"  {batch[0]:.1f} s; {batch[1]}")
    print("4. instrumentation overhead on a ~1 ms kernel")
    overhead_figures = instrumentation_overhead(args.overhead_rounds)
    print("5. repeat CLI grade through the grader daemon")
    daemon_figures = daemon_vs_floor(args.daemon_runs)

    print()
    print(f"floor (import jax + 1 jit call), median of {len(floor)}: {f:.2f} s")
    print(f"1. cold CLI grade: median {c:.2f} s = {c / f:.2f} x floor "
          f"(target <= 1.5): {_verdict(c / f <= 1.5)}")
    print(f"2. warm-pool grade: median {w:.3f} s = {w / f:.2f} x floor, p90 {w90:.3f} s = "
          f"{w90 / f:.2f} x floor (target median <= 0.3): {_verdict(w / f <= 0.3)}")
    if batch is not None:
        print(f"3. grade batch of {args.batch}, --jobs {args.jobs}: {batch[0]:.1f} s "
              f"({args.batch / batch[0]:.2f} per s; target <= 60 s): "
              f"{_verdict(batch[0] <= 60)}")
    _print_overhead(*overhead_figures)
    _print_daemon(*daemon_figures)


def median_interval(values: Sequence[float], confidence: float = 0.95
                    ) -> tuple[float, float] | None:
    """A distribution-free confidence interval for the median of ``values``: the k-th
    smallest and k-th largest, with k the largest rank such that a sample from any
    continuous distribution has at least ``confidence`` of holding its median between
    them (the binomial(n, 1/2) tails). ``None`` if there are too few values for it."""
    ordered = sorted(values)
    n = len(ordered)
    tails = [math.comb(n, j) / 2 ** n for j in range(n + 1)]
    best = None
    for k in range(1, n // 2 + 1):
        outside = 2 * sum(tails[:k])  # the median lies below the k-th smallest, or above
        if 1 - outside >= confidence:
            best = (ordered[k - 1], ordered[n - k])
    return best


def _print_overhead(size: int, plain: list[float], instrumented: list[float]) -> None:
    """Figure 4: medians over rounds of each round's warm median, and their ratio; and,
    as a check on it, the median of the rounds' own ratios (each round's two children
    ran back to back, so a round's ratio is the least exposed to the machine's drift),
    with a 95 % confidence interval: one round's ratio varies by several percent (each
    child is a new process), more than the effect measured, so the interval says whether
    the rounds run were enough to tell."""
    p, i = statistics.median(plain), statistics.median(instrumented)
    overhead = (i - p) / p
    ratios = [b / a - 1 for a, b in zip(plain, instrumented, strict=True)]
    paired = statistics.median(ratios)
    interval = median_interval(ratios)
    spread = ("too few rounds for a 95 % interval" if interval is None else
              f"95 % interval {interval[0] * 100:+.1f} % to {interval[1] * 100:+.1f} %")
    print(f"4. instrumentation overhead, {size}x{size} tanh(a @ a): plain {p * 1e3:.3f} ms, "
          f"instrumented {i * 1e3:.3f} ms, {overhead * 100:+.1f} % (target <= 3 %): "
          f"{_verdict(overhead <= 0.03)}; median of the {len(plain)} rounds' own "
          f"ratios {paired * 100:+.1f} % ({spread})")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; "
          f"jax imported by this process: {'jax' in sys.modules}")


if __name__ == "__main__":
    main()
