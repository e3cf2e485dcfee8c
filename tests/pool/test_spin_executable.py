"""The probe's spin is compiled once per zygote, in a throwaway fork of it, and every child
forked afterwards loads that executable instead of compiling it
(``syncgrade.child.spin_executable``; ``pool.ZYGOTE_PREPARE``): about 0.07 CPU-s less in
each pool child, the largest item of a child's warm-up (docs/performance.md).

Checked with the pool's own child environment, so the cache key a child computes is the
one the zygote's fork stored (a key that drifted apart would silently compile again, and
these tests would fail), and in two fresh processes for the child-side contract: the
cache exists only inside ``adopted()``, the spin loaded from it is the program the
compiled one is, and nothing was adopted where nothing was prepared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from syncgrade import pool
from syncgrade.child import workloads
from syncgrade.sandbox import Limits, Zygote, start_sandboxed

# What a forked child reports: whether it inherited an entry, how its warm-up compiled
# the spin (a load is a hit), the rate it measured, and jax's cache after the warm-up.
REPORTS_WARMUP = '''
import json
from syncgrade.child import spin_executable, workloads
from syncgrade.child.jax_private import compilation_cache

with spin_executable.adopted() as cache:
    rate = workloads.prewarm_spin(lambda: False, spin_executable.first_steps())
print(json.dumps({
    "adopted": spin_executable._ADOPTED is not None,
    "hits": None if cache is None else cache.hits,
    "first_steps": spin_executable.first_steps(),
    "steps": rate.steps, "seconds": rate.seconds,
    "cache_after": compilation_cache._cache is not None,
}))
'''


def _namespaces() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0


# The sandbox tests' stub: ``python -m await_main`` runs the delivered ``main.py``.
STUB_DIR = Path(__file__).resolve().parent.parent / "sandbox" / "zygote_stub"


def _forked_reports(prepare: str | None, runs: int) -> list[dict[str, object]]:
    """``runs`` children forked one after another from a zygote of the pool's child
    environment (with ``prepare``), each running :data:`REPORTS_WARMUP`."""
    command = pool.child_command()
    env = {**command.env,
           "PYTHONPATH": os.pathsep.join([str(STUB_DIR), command.env["PYTHONPATH"]])}
    argv = [sys.executable, "-m", "await_main"]
    reports = []
    with Zygote(argv, env, prepare=prepare) as zygote:
        zygote.start()
        for _ in range(runs):
            started = start_sandboxed(argv, env=env, limits=Limits(wall_s=120), zygote=zygote,
                                      readable_paths=[*command.readable_paths, STUB_DIR])
            outcome = started.deliver(b"", {"main.py": REPORTS_WARMUP.encode(),
                                            "_delivered": b""}, 120)
            assert outcome.returncode == 0, outcome.stderr.text[-2000:]
            reports.append(json.loads(outcome.stdout.text.strip().splitlines()[-1]))
            time.sleep(0.2)
    return reports


@pytest.mark.skipif(not _namespaces(), reason="a zygote's runs need the namespace jail")
def test_children_of_a_zygote_that_prepared_load_the_spin() -> None:
    # The first child may be forked before the zygote's prepare ended (it then compiles);
    # by the last the prepare has long ended (it takes well under a second at idle, and
    # each run here waits for jax's warm-up), and its warm-up loaded the spin.
    deadline = time.monotonic() + 120
    reports = _forked_reports(pool.ZYGOTE_PREPARE, 3)
    while not reports[-1]["adopted"] and time.monotonic() < deadline:  # a loaded machine
        reports = _forked_reports(pool.ZYGOTE_PREPARE, 3)
    last = reports[-1]
    assert last["adopted"] and last["hits"] == 1, reports
    assert not last["cache_after"]  # gone before any learner code could run
    for report in reports:  # a loaded spin runs and measures like a compiled one
        assert isinstance(report["steps"], int) and isinstance(report["first_steps"], int)
        assert report["steps"] >= report["first_steps"] >= workloads.FIRST_STEPS
        assert isinstance(report["seconds"], float) and report["seconds"] > 0


@pytest.mark.skipif(not _namespaces(), reason="a zygote's runs need the namespace jail")
def test_without_a_prepare_children_compile_as_before() -> None:
    reports = _forked_reports(None, 1)
    assert reports == [{**reports[0], "adopted": False, "hits": None, "cache_after": False,
                        "first_steps": workloads.FIRST_STEPS}]


# The child-side contract in two fresh processes: one prepares (as a zygote's fork does),
# the other adopts the bytes and compiles the spin as a warm-up does.
PREPARES = '''
import sys
from syncgrade.child import spin_executable
sys.stdout.buffer.write(spin_executable.prepare())
'''

ADOPTS = '''
import json, sys
import jax, numpy as np
from syncgrade.child import spin_executable, workloads
from syncgrade.child.jax_private import compilation_cache

prepared = sys.stdin.buffer.read()
spin_executable.adopt(prepared)
x = workloads.put(np.linspace(0.0, 1.0, workloads.PROBE_ELEMENTS, dtype=np.float32))
n = workloads.put(np.int32(50))
with spin_executable.adopted() as cache:
    loaded = np.asarray(jax.jit(workloads.spin)(x, n))  # as the warm-up's first run
    inside = compilation_cache._cache is cache
# What the loaded spin computes is what a freshly compiled one does (outside, a new
# function compiles anew: the cache is gone).
fresh = np.asarray(jax.jit(lambda a, k: workloads.spin(a, k))(x, n))
print(json.dumps({"hits": cache.hits, "inside": inside,
                  "first_steps": spin_executable.first_steps() == int(prepared.split(b"\\0")[0]),
                  "after": compilation_cache._cache is not None,
                  "same": bool((loaded == fresh).all())}))
'''


def test_an_adopted_entry_is_loaded_only_inside_adopted() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **pool.ONE_BLAS_THREAD}
    prepared = subprocess.run([sys.executable, "-c", PREPARES], env=env, capture_output=True,
                              check=True, timeout=300).stdout
    steps, _, rest = prepared.partition(b"\0")
    key, _, value = rest.partition(b"\0")
    assert int(steps) >= workloads.FIRST_STEPS  # where its own rate search ended
    assert key.startswith(b"jit_spin-") and value
    report = json.loads(subprocess.run(
        [sys.executable, "-c", ADOPTS], input=prepared, env=env, capture_output=True,
        check=True, timeout=300).stdout)
    assert report == {"hits": 1, "inside": True, "after": False, "same": True,
                      "first_steps": True}
