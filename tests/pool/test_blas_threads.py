"""NumPy's matrix products run on the calling thread in every grading child, cold or forked
from the pool's zygote (``pool.ONE_BLAS_THREAD``): ``interval-clean`` counts the learner
thread's CPU time, and a product split over BLAS worker threads showed only its share."""

from __future__ import annotations

import pytest

import syncgrade
from syncgrade import pool

# The learner's side: how much of a few matrix products' CPU time its own thread spent
# (on two or more cores a multithreaded BLAS leaves it about half or less).
ASKS_BLAS = '''
import time
import numpy as np

def synchronized_samples(fn, args, repeats):
    a = np.ones((1024, 1024), np.float32)
    mine, everyone = time.thread_time(), time.process_time()
    for _ in range(8):
        a @ a
    share = (time.thread_time() - mine) / (time.process_time() - everyone)
    print(f"BLAS-SHARE {share:.2f}")
    samples, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
'''


def test_the_child_command_sets_one_blas_thread_for_runs_and_the_zygote() -> None:
    command = pool.child_command()
    assert pool.ONE_BLAS_THREAD.items() <= dict(command.env).items()


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "pooled"])
def test_numpy_in_the_child_runs_one_blas_thread(warm: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pool.ENV_VAR, "1" if warm else "0")
    report = syncgrade.grade("exercise-1", source=ASKS_BLAS, timeout=60)
    shares = [float(line.split()[1]) for line in report.stdout.text.splitlines()
              if line.startswith("BLAS-SHARE ")]
    assert shares and min(shares) > 0.8, report.stdout.text
