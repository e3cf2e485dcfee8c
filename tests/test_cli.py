"""The `grade` command as a user runs it: output, --json, exit codes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from syncgrade.cli import EXIT_USAGE, main

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "src" / "syncgrade" / "course"  # the built-in course
SOLUTION = COURSE / "exercise-1" / "solution.py"
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"


def grade(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_full_marks_exit_0_and_verdict() -> None:
    result = grade("exercise-1", str(SOLUTION))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: no colour


def test_flawed_exit_1_with_the_learners_lines() -> None:
    result = grade("exercise-1", str(NO_WAIT))
    assert result.returncode == 1
    assert "✗ sync-before-stop" in result.stdout
    assert "What your timer measured" in result.stdout
    assert "timer stop" in result.stdout and "line " in result.stdout


def test_json_prints_exactly_one_report() -> None:
    from syncgrade.models import GradeReport

    result = grade("exercise-1", str(NO_WAIT), "--json")
    assert result.returncode == 1
    report = GradeReport.model_validate_json(result.stdout)
    assert report.exercise == "exercise-1"
    assert json.loads(result.stdout)["schema_version"] == report.schema_version


def test_default_path_is_the_exercise_stub_under_cwd(tmp_path: Path) -> None:
    stub = tmp_path / "exercises" / "exercise-1" / "submission.py"
    stub.parent.mkdir(parents=True)
    stub.write_text(SOLUTION.read_text())
    result = grade("exercise-1", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["submission"].endswith("exercise-1/submission.py")


def test_usage_errors_exit_2_with_one_line() -> None:
    for args in (["exercise-99"], ["exercise-1", "does/not/exist.py"],
                 ["exercise-1", str(SOLUTION), "--timeout", "-3"]):
        result = grade(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr
        assert result.stdout == ""


@pytest.mark.parametrize(("command", "option", "value", "words"), [
    ("grade", "--timeout", "0", "--timeout must be a number of seconds above 0"),
    ("grade", "--timeout", "-3", "not -3.0"),
    ("grade", "--timeout", "nan", "not nan"),
    ("grade", "--timeout", "inf", "not inf"),
    ("grade", "--timeout", "86400", "at most 3600, not 86400.0"),
    ("grade", "--timeout", "soon", "--timeout must be a number, not 'soon'"),
    ("grade", "--memory", "0", "--memory must be a number of GiB above 0"),
    ("grade", "--memory", "nan", "not nan"),
    ("grade", "--memory", "1e9", "at most 1024"),
    ("batch", "--timeout", "nan", "not nan"),
    ("batch", "--memory", "-1", "not -1.0"),
    ("serve", "--timeout", "0", "not 0.0"),
    ("serve", "--memory", "inf", "not inf"),
])
def test_bad_limits_are_usage_errors_with_one_line(command: str, option: str, value: str,
                                                   words: str) -> None:
    args = {"grade": ["exercise-1", str(SOLUTION)],
            "batch": ["batch", "--exercise", "exercise-1", str(SOLUTION)],
            "serve": ["serve", "--port", "1"]}[command]
    with contextlib.redirect_stderr(io.StringIO()) as err, \
            contextlib.redirect_stdout(io.StringIO()) as out:
        code = main([*args, option, value])
    assert code == EXIT_USAGE
    assert out.getvalue() == ""
    assert err.getvalue().startswith("grade: ") and words in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()


def test_a_bad_limit_from_the_command_line_is_one_line() -> None:
    result = grade("exercise-1", str(SOLUTION), "--timeout", "nan")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "grade: --timeout must be a number of seconds above 0 and at most 3600, not nan"]


def test_list_shows_exercises_with_titles() -> None:
    result = grade("list")
    assert result.returncode == 0
    assert "exercise-1  Time a completed result" in result.stdout


def test_timeout_option_is_applied() -> None:
    result = grade("exercise-1", str(SOLUTION), "--json", "--timeout", "45")
    assert json.loads(result.stdout)["grading"]["timeout_s"] == 45


def test_memory_option_limits_the_child() -> None:
    hog = COURSE / "exercise-1" / "corpus" / "correct" / "method_wait.py"
    result = grade("exercise-1", str(hog), "--json", "--memory", "0.5")
    report = json.loads(result.stdout)
    assert result.returncode == 1  # jax cannot even start in half a GiB
    assert report["checks"][0]["status"] == "failed"
    assert "memory limit" in report["checks"][0]["message"]
    detail = next(p["detail"] for p in report["grading"]["protections"]
                  if p["name"] == "address-space-limit")
    assert str(2**29) in detail


def test_the_child_is_prestarted_before_the_grader_is_imported(tmp_path: Path) -> None:
    """`grade` starts its child before importing the course loader (about 0.3 s of imports
    the child's start-up overlaps; without it a cold grade was 1.6x the floor, not 1.4x):
    finding what the pre-started child must not see imports nothing of the grader for the
    built-in course or a course folder given as a path."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from syncgrade.cli.common import prestart_hidden\n"
            f"assert prestart_hidden(None) == ()\n"
            f"assert prestart_hidden({str(tmp_path)!r})[0].name == {tmp_path.name!r}\n"
            "heavy = [m for m in ('syncgrade.courses', 'syncgrade.rubric', 'syncgrade.grading')"
            " if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
