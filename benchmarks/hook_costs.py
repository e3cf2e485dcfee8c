"""What one recorded operation costs a learner's loop (figure 4's make-up), side by side.

Figure 4 of ``grading_speed.py`` (the instrumentation overhead on a ~1 ms kernel) sums
every hook a sample passes through. This script splits it: the same snippet runs in a
plain sandboxed child and inside a graded (instrumented) child, interleaved, and times
with ``time.perf_counter_ns`` (itself a hook in the graded child, so each figure is one
operation plus one clock read's own cost, on both sides):

- ``pair``: two clock reads around nothing (what a sample's start and stop reads add);
- ``clock``: one more clock read between them;
- ``wait_ready``: ``block_until_ready()`` on an array that is already ready;
- ``call``: one call of a tiny jitted function (8x8 ``tanh(a @ a)``), not waited for;
- ``call_wait``: the call and its wait (a whole sample's operations);

medians of 2,000 each, in microseconds, and the difference per operation.

    .venv/bin/python benchmarks/hook_costs.py [--rounds 3]

This process never imports jax (only the children do).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys

from grading_speed import graded_stdout, plain_stdout, printed_on_first_call

SNIPPET = '''
import time

import jax
import jax.numpy as jnp
import numpy as np


def _median_us(operation, n=2000):
    spans = []
    for _ in range(n):
        began = time.perf_counter_ns()
        operation()
        spans.append(time.perf_counter_ns() - began)
    spans.sort()
    return spans[len(spans) // 2] / 1000


def hook_costs():
    kernel = jax.jit(lambda a: jnp.tanh(a @ a))
    x = jax.device_put(np.ones((8, 8), np.float32))
    ready = kernel(x)
    ready.block_until_ready()
    return {
        "pair": _median_us(lambda: None),
        "clock": _median_us(time.perf_counter),
        "wait_ready": _median_us(ready.block_until_ready),
        "call": _median_us(lambda: kernel(x)),
        "call_wait": _median_us(lambda: kernel(x).block_until_ready()),
    }
'''
PLAIN = SNIPPET + "\nprint('COSTS', hook_costs())\n"
GRADED = SNIPPET + printed_on_first_call('"COSTS", hook_costs()')
OPERATIONS = ("pair", "clock", "wait_ready", "call", "call_wait")


def _costs(text: str) -> dict[str, float]:
    for line in text.splitlines():
        if line.startswith("COSTS "):
            found = ast.literal_eval(line[len("COSTS "):])
            return {name: float(found[name]) for name in OPERATIONS}
    raise SystemExit(f"no costs in the child's output:\n{text[-2000:]}")


def plain() -> dict[str, float]:
    return _costs(plain_stdout(PLAIN))


def graded() -> dict[str, float]:
    return _costs(graded_stdout(GRADED))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="plain/graded pairs")
    args = parser.parse_args()
    rounds: list[tuple[dict[str, float], dict[str, float]]] = []
    for i in range(args.rounds):
        if i % 2 == 0:
            pair = plain(), graded()
        else:
            later = graded()
            pair = plain(), later
        rounds.append(pair)
        print(f"  round {i + 1}: " + "  ".join(
            f"{name} {pair[0][name]:.1f}/{pair[1][name]:.1f}" for name in OPERATIONS),
            flush=True)
    print(f"medians of {args.rounds} rounds (us: plain, graded, graded - plain):")
    for name in OPERATIONS:
        p = statistics.median(r[0][name] for r in rounds)
        g = statistics.median(r[1][name] for r in rounds)
        print(f"  {name:<11} {p:8.2f} {g:8.2f} {g - p:+8.2f}")
    print("jax imported by this process:", "jax" in sys.modules)


if __name__ == "__main__":
    main()
