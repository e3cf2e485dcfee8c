"""Suite-wide settings, applied before any test module imports syncgrade.

``SYNCGRADE_WARM_POOL``: each test process (each xdist worker) grades with a pool of one
pre-started child that has imported jax but no learner code, used for one submission and
then discarded (issue 10): the ~1,000 grades of a run skip the 1-2 s jax import each.
Isolation is unchanged: every submission still runs in a fresh process. Set it to 0 in
the environment to grade cold.

``XDG_STATE_HOME`` and ``SYNCGRADE_DAEMON_DIR``: a folder of this test process's own, so
that the ``grade`` commands the tests run record their progress there, not in the
developer's home, and never grade through a developer's running grader daemon
(issue 27); removed at exit. ``SYNCGRADE_VALIDATE_CACHE``: the fingerprints `grade
validate` records of valid exercises (``--changed``), there too.

``SYNCGRADE_ALLOW_UNPROTECTED``: set only where this machine could not keep learner code
from any hidden path (no namespaces, and no per-run uid that can start this Python: e.g.
an unprivileged CI user without user namespaces). The platform entry points refuse to
grade there by default (docs/security.md, "Fail closed"); the tests that run them check
everything else, so they opt in as an operator may. The refusal itself is tested with
the protection's answer faked (tests/platforms/test_platform_entries.py) and for real
without CAP_SYS_ADMIN (tests/platforms/test_bundle_capabilities.py, which clears it).

The order (``pytest_collection_modifyitems``): the modules holding the slowest tests of
``tests/durations.txt`` first, slowest first, each module's tests in their own order,
then every other module in collection order. xdist's ``worksteal`` hands each worker a
contiguous half and lets an idle worker take the tail of a busy one's queue: a
37-second test started last would otherwise leave one core idle at the end of the run.

One BLAS thread and frozen collected objects in the test processes (their own CPU time,
not the grading children's: see the comments where they are set).

``built_wheel``: the project's wheel, built once per run (test_start.py and
test_course_outside.py share it; under xdist the first worker that needs it builds it,
the others wait for it and read it).
"""

from __future__ import annotations

import atexit
import fcntl
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from order_support import slowest_modules_first, slowest_tests

os.environ.setdefault("SYNCGRADE_WARM_POOL", "1")
# The test processes' own NumPy (references, tolerances, golden values) on one BLAS
# thread: its idle worker threads spin after every product, about 5 % of a worker's CPU
# time, measured, taken from the grading children beside it. Set before numpy is imported;
# the grading children get one thread anyway (pool.ONE_BLAS_THREAD, never inherited).
for _blas in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")
_STATE = tempfile.mkdtemp(prefix="syncgrade-test-state-")
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)
os.environ["XDG_STATE_HOME"] = os.path.join(_STATE, "state")
os.environ["SYNCGRADE_DAEMON_DIR"] = os.path.join(_STATE, "daemon")
os.environ["SYNCGRADE_VALIDATE_CACHE"] = os.path.join(_STATE, "validate.json")


def _where_nothing_can_be_hidden() -> None:
    from syncgrade import sandbox

    if sandbox.unprotected_reason(sys.executable, []) is not None:
        os.environ["SYNCGRADE_ALLOW_UNPROTECTED"] = "1"


_where_nothing_can_be_hidden()


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the working tree, built once per run: in the folder that every xdist
    worker of this run shares (the parent of each worker's base temp), under a lock, so
    one worker builds it and the others wait for that build (a build is the same bytes:
    one source, one pip); without xdist, in this process's own base temp."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with (shared / "built-wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        out = shared / "built-wheel"
        if not out.is_dir():
            _build_wheel(tmp_path_factory, shared / "built-wheel.partial")
            (shared / "built-wheel.partial").rename(out)
    (wheel,) = out.glob("syncgrade-*.whl")
    return wheel


def _build_wheel(tmp_path_factory: pytest.TempPathFactory, out: Path) -> None:
    """``pip wheel --no-deps`` of the working tree into ``out``, from a copy of its files
    that git does not ignore, so the build leaves nothing in the checkout (no build/, no
    egg-info)."""
    source = tmp_path_factory.mktemp("source") / "syncgrade"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        path = ROOT / name
        if path.is_file():  # a file deleted but not yet staged is listed too
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, source / name, follow_symlinks=False)
    shutil.rmtree(out, ignore_errors=True)  # a build that failed part-way
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q",
                    "-w", str(out)], check=True, capture_output=True, timeout=600)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = slowest_modules_first(items, slowest_tests())


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what importing and collecting made (modules, items, parameters: all live to
    the end of the run), so the test process's collections skip it: they were about 15 %
    of a worker's CPU time while it graded the corpus (measured with perf)."""
    gc.collect()
    gc.freeze()
