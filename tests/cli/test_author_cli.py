"""An exercise's author's mistakes, as the author meets them on the command line (issue
36): a declared workload that fails on its own code is one rubric error line naming the
author's file and line, exit 2 (``--json`` too), and ``grade validate`` says it once, on
the exercise's ``rubric`` row, never as grader faults of each graded file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = ROOT / "exercises" / "exercise-1"
SOLUTION = ROOT / "solutions" / "exercise-1" / "solution.py"
BROKEN = 'BROKEN = "def predict(x, w):\\n    return jnp.tahn(x @ w)\\n"\n'


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course outside the checkout whose exercise-1 times a declared workload with a
    typo in its own code (``jnp.tahn``)."""
    root = tmp_path_factory.mktemp("course")
    folder = root / "exercise-1"
    shutil.copytree(EXERCISE, folder)
    shutil.copy(SOLUTION, folder / "solution.py")
    declaration = folder / "exercise.py"
    text = declaration.read_text()
    text = text.replace('MAIN = "main"\n', 'MAIN = "main"\n' + BROKEN, 1)
    text = text.replace('s.workload("predict", warm=', 's.workload("predict", source=BROKEN, '
                        'warm=', 1)
    declaration.write_text(text)
    return root


def grade(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SYNCGRADE_COURSE", None)
    env["SYNCGRADE_DAEMON"] = "0"  # the cold path: this process raises what it finds
    return subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def expected_error(course: Path) -> str:
    declaration = course / "exercise-1" / "exercise.py"
    line = next(n for n, text in enumerate(declaration.read_text().splitlines(), 1)
                if "GraderCall(MAIN" in text)
    return (f"rubric error in exercise-1: {declaration}:{line}: the declared workload "
            "`predict` failed on its own code (line 2 of its source) when call 'main' ran "
            "it: AttributeError: module 'jax.numpy' has no attribute 'tahn'")


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_a_workload_failing_on_its_own_code_is_one_rubric_error_line(
        course: Path, fmt: list[str]) -> None:
    result = grade("exercise-1", str(course / "exercise-1" / "solution.py"), "--course",
                   str(course), *fmt)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr == f"grade: {expected_error(course)}\n"


def test_validate_reports_it_once_as_the_author_s(course: Path) -> None:
    result = grade("validate", "exercise-1", "--course", str(course), "--runs", "1",
                   "--no-corpus-grades", "--json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    rows = data["rows"]
    # Grading stopped at the first rubric error: at most one grade per job was under way.
    graded = re.search(r"; (\d+) grades in", data["summary"])
    assert graded is not None and 1 <= int(graded[1]) <= 2, data["summary"]
    failing = [row for row in rows if not row["ok"]]
    assert [row["item"] for row in failing] == ["rubric"], failing
    assert failing[0]["got"].startswith(expected_error(course) + " (grading stopped: ")
    assert "grader fault" not in result.stdout
    assert result.stdout.count("has no attribute 'tahn'") == 1
