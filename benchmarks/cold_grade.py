"""Cold `grade exercise-1` of the solution against `import jax` plus one jitted call.

Both are fresh processes, run alternately in one session so machine noise hits both alike.
Prints each run, the medians and their ratio (target: at most 2.0).

    .venv/bin/python benchmarks/cold_grade.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ("import jax, jax.numpy as jnp; "
            "jax.jit(lambda x: jnp.tanh(x @ x))(jnp.ones((64, 64))).block_until_ready()")
GRADE = [sys.executable, "-m", "syncgrade.cli", "exercise-1",
         str(ROOT / "solutions" / "exercise-1" / "submission.py"), "--json"]


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if argv is GRADE and result.returncode != 0:
        raise SystemExit(f"grading the solution did not give full marks:\n{result.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    _time([sys.executable, "-c", BASELINE])  # warm the OS file cache for both sides
    _time(GRADE)
    baseline, grading = [], []
    for i in range(runs):
        baseline.append(_time([sys.executable, "-c", BASELINE]))
        grading.append(_time(GRADE))
        print(f"run {i + 1}: import jax + 1 jit call {baseline[-1]:.2f} s   "
              f"cold grade exercise-1 {grading[-1]:.2f} s")
    b, g = statistics.median(baseline), statistics.median(grading)
    print(f"median: baseline {b:.2f} s, grade {g:.2f} s, ratio {g / b:.2f} (target <= 2.0)")


if __name__ == "__main__":
    main()
