"""Hostile and broken submissions, graded end to end: each ends in a report that says what
happened, the grader's output stays its own, and nothing passes that should not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from process_support import LoadBudget

import syncgrade
from syncgrade.models import CheckResult, GradeReport

ROOT = Path(__file__).resolve().parents[2]
CORRECT_BODY = """
import time
def synchronized_samples(fn, args, repeats):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
"""


def _runs(report: GradeReport) -> CheckResult:
    return report.check("runs")


def test_hang_at_import_is_stopped_at_the_time_limit() -> None:
    report = syncgrade.grade("exercise-1",
                             source="import time\nwhile True:\n    time.sleep(0.01)\n",
                             timeout=6)
    assert (report.status, report.cause) == ("failed", "timeout")
    assert report.grading.termination == "timeout"
    assert "6 s time limit" in _runs(report).message
    assert "line 3" in _runs(report).message or "line 2" in _runs(report).message
    assert report.grading.seconds < 6 + LoadBudget().bound(24)  # the limit, then idle 24 s


def test_hang_inside_the_function_names_the_line_and_keeps_decided_checks() -> None:
    # The main call completes; the probe call (second) hangs on its first sample.
    source = CORRECT_BODY.replace(
        "    samples = []\n",
        "    samples = []\n    if repeats < 4:\n        while True:\n            pass\n")
    report = syncgrade.grade("exercise-1", source=source, timeout=12)
    assert (report.status, report.cause) == ("failed", "timeout")
    message = _runs(report).message
    assert "time limit" in message and ("line 6" in message or "line 7" in message), message
    # Checks on the completed main call were decided, not thrown away.
    assert report.check("numpy-match").status == "passed"
    assert report.check("sync-before-stop").status == "passed"
    assert report.check("covers-device-work").status == "skipped"


def test_memory_exhaustion_says_the_memory_limit_was_hit() -> None:
    source = CORRECT_BODY + "\nblocks = []\nwhile True:\n    blocks.append(bytearray(2**28))\n"
    report = syncgrade.grade("exercise-1", source=source, memory_bytes=3 * 2**30)
    assert (report.status, report.cause) == ("failed", "memory_limit")
    assert "memory limit" in _runs(report).message.lower()


def test_output_flood_is_truncated_and_bounded() -> None:
    source = CORRECT_BODY + (
        "\nimport sys\nfor _ in range(3000):\n    sys.stdout.write('x' * 100_000)\n")
    report = syncgrade.grade("exercise-1", source=source)
    assert report.stdout.truncated is True
    assert report.stdout.total_bytes >= 300_000_000
    assert len(report.stdout.text) < 200_000
    assert report.status == "passed"  # printing is allowed; it just isn't kept


def test_huge_return_value_is_capped_and_reported() -> None:
    source = CORRECT_BODY.replace(
        "return out, samples",
        "import numpy as np\n    return np.zeros((64, 1024, 1024)), samples")
    report = syncgrade.grade("exercise-1", source=source)
    assert report.check("numpy-match").status == "failed"
    assert "too large" in report.check("numpy-match").message


def test_sys_exit_and_os_exit_and_signals_are_errors_with_a_message() -> None:
    cases = {
        "import sys\nsys.exit(0)\n": "SystemExit",
        "import os\nos._exit(0)\n": "exited early",
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n": "SIGKILL",
        "import faulthandler\nfaulthandler._sigsegv()\n": "SIGSEGV",
        # ctypes is refused by the child's guard before it can crash anything
        "import ctypes\nctypes.string_at(0)\n": "ctypes is not allowed",
    }
    for source, phrase in cases.items():
        report = syncgrade.grade("exercise-1", source=source)
        assert report.status == "failed", source
        assert report.cause in ("graded", "crashed", "tampered"), (source, report.cause)
        assert _runs(report).status == "failed", source
        assert phrase in _runs(report).message, (source, _runs(report).message)


def test_a_printed_fake_report_never_reaches_the_graders_stdout(tmp_path: Path) -> None:
    fake = {"schema_version": "1.0", "exercise": "exercise-1", "status": "passed",
            "score": 9.0, "max_score": 9.0}
    path = tmp_path / "fake.py"
    path.write_text(f"print({json.dumps(json.dumps(fake))})\n"
                    "import os\nos.write(1, b'{\"status\": \"passed\"}\\n')\n"
                    "def synchronized_samples(fn, args, repeats):\n    return None, []\n")
    result = subprocess.run([sys.executable, "-m", "syncgrade.cli", "exercise-1", str(path),
                             "--json"], capture_output=True, text=True, timeout=300)
    report = json.loads(result.stdout)  # exactly one JSON document: the grader's
    assert report["status"] == "failed" and result.returncode == 1
    assert '"status": "passed"' in report["stdout"]["text"]


def test_replacing_the_timer_never_passes_and_is_reported() -> None:
    source = ("import time\n_real = time.perf_counter\n"
              "time.perf_counter = lambda: _real() * 1.0\n" + CORRECT_BODY)
    report = syncgrade.grade("exercise-1", source=source)
    assert (report.status, report.cause) == ("failed", "tampered")
    assert any("perf_counter" in name for name in report.grading.tampered)
    assert all(c.status != "passed" for c in report.checks if c.id != "runs")
    assert "altered" in report.check("sync-before-stop").message


def test_replacing_block_until_ready_never_passes() -> None:
    source = ("import jax\nfrom jax._src.lib import xla_client as xc\n"
              "xc.ArrayImpl.block_until_ready = lambda self: self\n" + CORRECT_BODY)
    report = syncgrade.grade("exercise-1", source=source)
    assert (report.status, report.cause) == ("failed", "tampered")
    assert report.grading.tampered
    assert report.score <= 1


def test_the_report_records_the_protections_applied() -> None:
    report = syncgrade.grade("exercise-1", source=CORRECT_BODY)
    names = {p.name for p in report.grading.protections}
    assert {"wall-limit", "address-space-limit", "process-group", "scrubbed-env"} <= names
    assert all(p.detail for p in report.grading.protections)


def test_the_child_cannot_read_the_rubric_or_the_solutions() -> None:
    from syncgrade.courses import builtin_course

    files = builtin_course().folder("exercise-1")  # exercises/ and solutions/ in a checkout
    secrets = [files.declaration, files.solution, files.mutants,
               ROOT / "src/syncgrade/rubric/checks_values.py"]
    source = CORRECT_BODY + (
        "\nimport pathlib\nLEAK = []\n"
        f"for p in {[str(p) for p in secrets]!r}:\n"
        "    try:\n        LEAK.append(pathlib.Path(p).read_text()[:20])\n"
        "    except OSError as exc:\n        LEAK.append(type(exc).__name__)\n"
        "print('LEAK', LEAK)\n")
    report = syncgrade.grade("exercise-1", source=source)
    applied = {p.name: p.applied for p in report.grading.protections}
    if applied.get("hidden-paths"):
        line = next(t for t in report.stdout.text.splitlines() if t.startswith("LEAK"))
        assert "make_inputs" not in line and "def " not in line, line
        assert "mutant" not in line and "import" not in line, line
        assert line.count("Error") == len(secrets), line  # each read refused
    assert all(os.path.exists(p) for p in secrets)
