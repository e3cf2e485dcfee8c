"""NumPy's matrix products run on the calling thread in every grading child, cold or forked
from the pool's zygote (``pool.ONE_BLAS_THREAD``): ``interval-clean`` counts the learner
thread's CPU time, and a product split over BLAS worker threads showed only its share
(0.36-0.51 of it on 2 cores, more than 0.8 with one thread).

The share can only be measured where BLAS would start workers (two or more CPUs): on one
CPU OpenBLAS uses one thread anyway. So the environment that makes it one thread is
checked on its own, on any machine: in the environments a run and a zygote are started
with, and as the learner's code sees it in the child."""

from __future__ import annotations

from pathlib import Path

import pytest

import syncgrade
from syncgrade import pool
from syncgrade.sandbox import Zygote
from syncgrade.sandbox._runner import child_environment

# The learner's side: the BLAS variables it sees, and how much of a few matrix products'
# CPU time its own thread spent (on two or more cores a multithreaded BLAS leaves it about
# half or less).
ASKS_BLAS = '''
import os
import time
import numpy as np

def synchronized_samples(fn, args, repeats):
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        print(f"BLAS-ENV {name} {os.environ.get(name)}")
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


def test_the_child_command_sets_one_blas_thread_for_runs_and_the_zygote(tmp_path: Path
                                                                         ) -> None:
    command = pool.child_command()
    assert pool.ONE_BLAS_THREAD.items() <= dict(command.env).items()
    # What a cold run is started with (the sandbox's scrubbed environment plus the
    # command's) and what the zygote imports numpy under (its forks' environment).
    run = child_environment(tmp_path, command.env, (3, 4), "token")
    assert pool.ONE_BLAS_THREAD.items() <= run.items()
    zygote = Zygote(command.argv, command.env).server_env()
    assert pool.ONE_BLAS_THREAD.items() <= zygote.items()


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "pooled"])
def test_numpy_in_the_child_runs_one_blas_thread(warm: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pool.ENV_VAR, "1" if warm else "0")
    report = syncgrade.grade("exercise-1", source=ASKS_BLAS, timeout=60)
    lines = report.stdout.text.splitlines()
    seen = dict(line.split()[1:3] for line in lines if line.startswith("BLAS-ENV "))
    assert seen == pool.ONE_BLAS_THREAD, report.stdout.text
    shares = [float(line.split()[1]) for line in lines if line.startswith("BLAS-SHARE ")]
    assert shares and min(shares) > 0.8, report.stdout.text
