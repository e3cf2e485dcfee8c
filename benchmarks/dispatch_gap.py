"""Why work between a learner's jitted calls costs more than its own duration (issue 10).

The same ~1 ms kernel is timed the way a learner times it (``perf_counter``, the call,
``block_until_ready``, ``perf_counter``) in one plain process, with a busy wait of G
microseconds of pure Python either *outside* the interval (after the stop read, before
the next start read) or *inside* it (after the start read, before the dispatch). Rounds
interleave the settings, so the machine's drift hits all of them; the script prints each
setting's median and its difference from G = 0.

With jax's asynchronous CPU dispatch, a gap between one call's end and the next dispatch
lets the dispatch thread go to sleep, and waking it lands inside the next interval: on
the project's 2-core VM a 5 µs gap outside the interval adds about 10 µs to it, 20 µs adds
about 25 µs. With ``--sync`` (``jax_cpu_enable_async_dispatch`` off) the same gaps outside
cost nothing. This is why the grader's hooks do nothing before a dispatch and nothing
after a wait (docs/performance.md, "Overhead").

    .venv/bin/python benchmarks/dispatch_gap.py [--rounds 12] [--size 590] [--sync]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

CHILD = r'''
import statistics, sys, time
import jax
if sys.argv[3] == "sync":
    jax.config.update("jax_cpu_enable_async_dispatch", False)
import jax.numpy as jnp
import numpy as np

size, rounds = int(sys.argv[1]), int(sys.argv[2])
kernel = jax.jit(lambda a: jnp.tanh(a @ a))
x = jax.device_put(np.ones((size, size), np.float32) * 0.01)
x.block_until_ready()
for _ in range(20):
    kernel(x).block_until_ready()
clock = time.perf_counter


def busy(seconds):
    end = clock() + seconds
    while clock() < end:
        pass


def median_interval(gap, where, n=150):
    samples = []
    for _ in range(n):
        start = clock()
        if where == "inside":
            busy(gap)
        kernel(x).block_until_ready()
        samples.append(clock() - start)
        if where == "outside":
            busy(gap)
    return statistics.median(samples)


settings = [(0, "outside"), (5, "outside"), (10, "outside"), (20, "outside"),
            (40, "outside"), (20, "inside")]
medians = {s: [] for s in settings}
for _ in range(rounds):
    for gap, where in settings:
        medians[(gap, where)].append(median_interval(gap * 1e-6, where))
base = statistics.median(medians[settings[0]])
for (gap, where), values in medians.items():
    m = statistics.median(values)
    print(f"gap {gap:3d} us {where:7s}: interval median {m * 1e6:8.1f} us, "
          f"{(m - base) * 1e6:+6.1f} us against no gap")
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--size", type=int, default=590, help="matrix side (590: ~1.2 ms)")
    parser.add_argument("--sync", action="store_true",
                        help="turn jax's asynchronous CPU dispatch off (the control)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start; "
          f"dispatch {'synchronous' if args.sync else 'asynchronous (jax default)'}")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(args.size), str(args.rounds),
         "sync" if args.sync else "async"],
        cwd=Path(__file__).resolve().parent, check=False)
    raise SystemExit(done.returncode)


if __name__ == "__main__":
    main()
