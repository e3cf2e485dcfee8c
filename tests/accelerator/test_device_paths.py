"""The accelerator paths on the CPU: the resident-memory watchdog (in place of RLIMIT_AS),
the lease around cold and pooled children, a runtime that cannot start (a grader fault),
``--device`` and the report's device line. ``SYNCGRADE_DEVICE_LEASE=1`` makes the CPU
take the paths an accelerator takes."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest
from builders import wait_until

from syncgrade import accelerator, grading, sandbox
from syncgrade.grading.cause import describe_termination
from syncgrade.models import GradeReport
from syncgrade.pool import WarmPool
from syncgrade.render import render
from syncgrade.sandbox import Limits
from syncgrade.sandbox._resident import ResidentWatch, rss_anon_bytes

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "exercise-1" / "solution.py"
GOLDEN = ROOT / "tests" / "picture" / "terminal_golden" / "exercise-1-solution.json"
TOUCH_1_GIB = "import numpy as np\nblocks = [np.ones(2**24) for _ in range(8)]\n"


@pytest.fixture
def leased(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Children take the lease and the resident limit, on the CPU; the lock file's path."""
    monkeypatch.setenv(accelerator.LEASE_ENV, "1")
    monkeypatch.setenv(accelerator.LOCK_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(accelerator.LEASE_WAIT_ENV, "120")
    monkeypatch.delenv("SYNCGRADE_WARM_POOL", raising=False)
    return tmp_path / "syncgrade-cpu.lock"


def _python(code: str, limits: Limits) -> sandbox.SandboxOutcome:
    return sandbox.run_sandboxed([sys.executable, "-c", code], limits=limits,
                                 isolation="basic")


def test_the_resident_limit_stops_touched_memory_as_a_memory_ending() -> None:
    out = _python(TOUCH_1_GIB + "import time\ntime.sleep(30)\n",
                  Limits(wall_s=60, memory_bytes=256 * 2**20, memory_kind="resident"))
    assert out.termination == "memory"
    applied = {p.name: p.applied for p in out.protections}
    assert applied["resident-memory-limit"] is True
    assert applied["address-space-limit"] is False


def test_the_resident_limit_lets_address_space_be_reserved() -> None:
    # What libtpu does at start: reserve far more address space than it uses.
    reserve = "import mmap\nm = mmap.mmap(-1, 8 * 2**30)\nprint('reserved')\n"
    resident = _python(reserve, Limits(wall_s=60, memory_bytes=256 * 2**20,
                                       memory_kind="resident"))
    assert (resident.termination, resident.stdout.text) == ("exited", "reserved\n")
    capped = _python(reserve, Limits(wall_s=60, memory_bytes=256 * 2**20))
    assert capped.termination == "memory"  # RLIMIT_AS, the CPU default, refuses it


def test_the_watch_counts_growth_over_its_baseline_only() -> None:
    sizes = {1: 5 * 2**30, 2: 0}
    watch = ResidentWatch(2**30, lambda: [1, 2], read=lambda pid: sizes[pid])
    watch.set_baseline()  # a runtime's 5 GiB is not the learner's
    assert not watch.over()
    sizes[2] = 2**30 + 1
    watch._next = 0.0  # the next reading is due
    assert watch.over() and watch.exceeded
    assert rss_anon_bytes(os.getpid()) > 0 and rss_anon_bytes(2**22 + 7) == 0


def test_a_runtime_that_cannot_start_is_the_graders_fault() -> None:
    # libtpu under RLIMIT_AS, or a chip held elsewhere: it ends before the hello frame.
    out = _python("import sys\nsys.stderr.write('RuntimeError: Unable to initialize "
                  "backend tpu: ABORTED: libtpu lockfile\\n')\nsys.exit(1)\n", Limits())
    resident = [*out.protections, sandbox.Protection("resident-memory-limit", True, "")]
    for termination in ("memory", "exited", "signal"):
        ended = dataclasses.replace(out, termination=termination, protections=resident)
        with pytest.raises(RuntimeError, match="Unable to initialize backend tpu"):
            describe_termination(ended, Limits(), "submission.py")
    # On the CPU (RLIMIT_AS) too: a --memory too small for jax is never the learner's
    # (their code has not run), and a silent SIGSEGV reads like the marked ending.
    endings: list[tuple[sandbox.Termination, str | None]] = [("memory", None),
                                                              ("signal", "SIGSEGV")]
    for termination, name in endings:
        ended = dataclasses.replace(out, termination=termination, signal_name=name)
        with pytest.raises(RuntimeError, match=r"may not fit the 4\.0 GiB memory limit"):
            describe_termination(ended, Limits(), "submission.py")
    with pytest.raises(RuntimeError) as exited:
        describe_termination(dataclasses.replace(out, termination="exited"), Limits(),
                             "submission.py")
    assert "memory" not in str(exited.value).split(":")[0]  # status 1: no guess


def test_a_cold_grade_holds_the_lease_and_a_held_lease_is_a_clear_fault(
        leased: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = grading.grade("exercise-1", SOLUTION)
    assert report.status == "passed", report.summary
    names = {p.name for p in report.grading.protections if p.applied}
    assert "resident-memory-limit" in names and "address-space-limit" not in names
    monkeypatch.setenv(accelerator.LEASE_WAIT_ENV, "0.5")
    with accelerator.DeviceLease(leased):  # another grader's child has the device
        busy = grading.grade("exercise-1", SOLUTION)
    assert (busy.status, busy.cause) == ("error", "grader_fault")
    assert "the device is busy" in (busy.grading.internal_error or "")


def test_a_pool_on_a_leased_device_keeps_one_child_holding_the_lease(leased: Path) -> None:
    with WarmPool(2, wait_s=120) as warm:
        assert warm.size == 1 and warm.stats.zygote == "off"
        wait_until(lambda: warm.warm_children() == 1, 180)
        with pytest.raises(accelerator.DeviceBusy):  # the idle child holds the device
            accelerator.DeviceLease(leased, wait_s=0.2).acquire()
        report = grading.grade("exercise-1", SOLUTION, pool=warm)
        assert report.status == "passed", report.summary
        # Other limits go cold: the idle child is discarded first, so nothing deadlocks.
        wait_until(lambda: warm.warm_children() == 1, 180)
        cold = grading.grade("exercise-1", SOLUTION, pool=warm, memory_bytes=3 * 2**30)
        assert cold.status == "passed", cold.summary
        assert warm.stats.fallback_reasons.get("other limits") == 1
    with accelerator.DeviceLease(leased, wait_s=5) as lease:  # closed: given back
        assert lease.held


def test_device_option_sets_the_variable_every_child_reads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade.cli.grade import grade_parser

    monkeypatch.setenv(accelerator.DEVICE_ENV, "auto")  # restored after the test
    args = grade_parser().parse_args(["exercise-1", "--device", "cpu"])
    assert args.device == "cpu" and os.environ[accelerator.DEVICE_ENV] == "cpu"
    from syncgrade.pool import child_command

    assert child_command().env["JAX_PLATFORMS"] == "cpu"
    with pytest.raises(SystemExit):
        grade_parser().parse_args(["exercise-1", "--device", "npu"])


def test_the_text_report_names_an_accelerator_and_stays_as_it_was_on_the_cpu() -> None:
    report = GradeReport.model_validate(json.loads(GOLDEN.read_text())["report"])
    assert report.provenance.backend == "cpu"
    assert "graded on" not in render(report)
    on_tpu = report.model_copy(update={"provenance": report.provenance.model_copy(
        update={"backend": "tpu", "device": "TPU v5 lite"})})
    assert render(on_tpu).splitlines()[2] == "graded on tpu (TPU v5 lite)"
