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
from syncgrade.cli.common import prestart_hidden

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
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
    # The ids are padded to the longest (exercise-10): one row per exercise, id then title.
    rows = [line.split(None, 1) for line in result.stdout.splitlines()]
    assert ["exercise-1", "Time a completed result"] in rows
    assert ["exercise-10", "Time a step whose input is donated"] in rows


def test_timeout_option_is_applied() -> None:
    result = grade("exercise-1", str(SOLUTION), "--json", "--timeout", "45")
    assert json.loads(result.stdout)["grading"]["timeout_s"] == 45


def test_memory_option_limits_the_child() -> None:
    hog = COURSE / "exercise-1" / "corpus" / "correct" / "method_wait.py"
    result = grade("exercise-1", str(hog), "--json", "--memory", "0.5")
    report = json.loads(result.stdout)
    # jax cannot even start in half a GiB: before any learner code ran, so a grader fault
    # (whether the runtime aborts with a message or dies of a silent SIGSEGV, which at
    # load changes from run to run), never the learner's failure.
    assert result.returncode == 3, report["summary"]
    assert (report["status"], report["cause"]) == ("error", "grader_fault")
    assert "memory limit: raise --memory" in report["grading"]["internal_error"]
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
    # A course that keeps its solutions outside: the child is pre-started hiding both.
    course = tmp_path / "course"
    course.mkdir()
    (course / "course.toml").write_text('solutions = "../answers"\n')
    assert prestart_hidden(str(course)) == (course.resolve(), (tmp_path / "answers").resolve())


# ------------------------------------------------------------------ options anywhere


@pytest.mark.parametrize("argv", [
    ["exercise-4", "--json", "attempt.py"],
    ["--json", "exercise-4", "attempt.py"],
    ["exercise-4", "attempt.py", "--json"],
    ["--timeout", "45", "exercise-4", "--json", "attempt.py", "--memory", "2"],
    ["exercise-4", "--format", "json", "--reveal", "attempt.py"],
])
def test_grade_options_go_anywhere(argv: list[str]) -> None:
    from syncgrade.cli.common import parse_anywhere
    from syncgrade.cli.grade import grade_parser

    args = parse_anywhere(grade_parser(), argv)
    assert (args.exercise, args.path) == ("exercise-4", Path("attempt.py"))
    assert args.json or args.format == "json"


def test_an_option_before_the_file_grades_the_file(tmp_path: Path) -> None:
    """The report of issue 19: `grade exercise-4 --json attempt.py` was "unrecognized
    arguments: attempt.py"."""
    (tmp_path / "attempt.py").write_text((SOLUTIONS / "exercise-4" / "solution.py").read_text())
    result = grade("exercise-4", "--json", "attempt.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["submission"] == "attempt.py"


@pytest.mark.parametrize("argv", [
    ["batch", "a.py", "--course", "{missing}", "--exercise", "exercise-1", "b.py"],
    ["batch", "--exercise", "exercise-1", "a.py", "--jobs", "1", "b.py", "--course",
     "{missing}"],
    ["validate", "exercise-1", "--course", "{missing}", "exercise-2"],
    ["validate", "--json", "exercise-1", "exercise-2", "--course", "{missing}"],
    ["start", "--course", "{missing}", "exercise-1"],
    ["start", "--force", "exercise-1", "--course", "{missing}"],
    ["list", "--course", "{missing}", "--json"],
    ["exercise-1", "--course", "{missing}", "a.py", "--json"],
    # Options before the subcommand (issue 26): `grade --course DIR list` graded "list".
    ["--course", "{missing}", "list"],
    ["--json", "--course", "{missing}", "list"],
    ["--course", "{missing}", "batch", "a.py", "--exercise", "exercise-1"],
    ["--course={missing}", "--jobs", "1", "batch", "--exercise", "exercise-1", "a.py"],
    ["--course", "{missing}", "start", "exercise-1"],
    ["--course", "{missing}", "validate", "exercise-1"],
])
def test_every_subcommand_takes_options_anywhere(tmp_path: Path, argv: list[str]) -> None:
    """Each command line parses (positionals after options included) and reaches the
    course lookup, whose one-line error proves it: before, argparse stopped at the second
    positional with "unrecognized arguments"."""
    missing = tmp_path / "no-such-course"
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()):
            code = main([a.replace("{missing}", str(missing)) for a in argv])
    finally:
        os.chdir(cwd)
    assert code == EXIT_USAGE
    assert err.getvalue().strip().splitlines() == [f"grade: no course folder at {missing}"]


def test_new_takes_options_around_its_exercise(tmp_path: Path) -> None:
    course = tmp_path / "course"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["new", "--course", str(course), "exercise-10", "--title", "A title"]) == 0
    assert (course / "exercise-10" / "exercise.py").is_file()


# ------------------------------------------------------------------ grading from any folder


def test_grade_inside_the_exercise_folder_grades_its_submission(tmp_path: Path) -> None:
    assert grade("start", "exercise-3", cwd=tmp_path).returncode == 0
    folder = tmp_path / "exercises" / "exercise-3"
    (folder / "submission.py").write_text((SOLUTIONS / "exercise-3" / "solution.py").read_text())
    result = grade("--json", cwd=folder)  # bare `grade`: this folder's exercise
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["submission"] == "submission.py" and report["exercise"] == "exercise-3"


def _usage_line(argv: list[str], cwd: Path) -> str:
    here = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()) as out:
            code = main(argv)
    finally:
        os.chdir(here)
    assert code == EXIT_USAGE and out.getvalue() == ""
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    return lines[0]


def test_a_missing_submission_says_what_would_work(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _usage_line(["exercise-3"], empty) == (
        "grade: no exercises/exercise-3/submission.py here; run `grade start exercise-3` "
        "first, or give the file: `grade exercise-3 path/to/file.py`")

    (empty / "submission.py").write_text("x = 1\n")
    assert _usage_line(["exercise-3"], empty) == (
        "grade: no exercises/exercise-3/submission.py here, but there is a submission.py: "
        "`grade exercise-3 submission.py` grades it")

    other = tmp_path / "work" / "exercises" / "exercise-2"
    other.mkdir(parents=True)
    (other / "submission.py").write_text("x = 1\n")
    line = _usage_line(["exercise-3"], other)
    assert line == ("grade: no ../exercise-3/submission.py yet (this folder is exercise-2's); "
                    "run `grade start exercise-3` first, or give the file: "
                    "`grade exercise-3 path/to/file.py`")

    assert _usage_line(["exercise-1", "nope.py"], empty) == "grade: no such file: nope.py"
    assert _usage_line([], empty) == (  # bare `grade` outside an exercise's folder
        "grade: which exercise? e.g. `grade exercise-1` (`grade list` shows them), or run "
        "`grade` inside exercises/EXERCISE/")
    # An unknown exercise is said first, even with no file.
    assert "unknown exercise 'exercise-99'" in _usage_line(["exercise-99"], empty)


def test_a_folder_argument_grades_its_submission(tmp_path: Path) -> None:
    from syncgrade.cli import UsageError
    from syncgrade.cli.grade import submission_path

    folder = tmp_path / "exercises" / "exercise-1"
    folder.mkdir(parents=True)
    (folder / "submission.py").write_text("x = 1\n")
    assert submission_path("exercise-1", folder, tmp_path) == folder / "submission.py"
    assert submission_path("exercise-1", None, folder) == Path("submission.py")
    assert submission_path("exercise-1", None, folder.parent) == Path("exercise-1/submission.py")
    with pytest.raises(UsageError, match=r"is a folder with no submission\.py"):
        submission_path("exercise-1", tmp_path, tmp_path)


def test_a_deleted_current_folder_is_one_line(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    here = Path.cwd()
    os.chdir(gone)
    gone.rmdir()
    try:
        for argv in (["exercise-1"], ["start", "exercise-1"]):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                assert main(argv) == EXIT_USAGE
            assert err.getvalue() == ("grade: the current folder no longer exists; `cd` into "
                                      "your work and run this again\n")
    finally:
        os.chdir(here)


def test_the_grade_command_imports_no_other_subcommand() -> None:
    """The cold path (docs/performance.md): importing the CLI loads neither ``validate``/
    ``new``, ``batch``, ``package``, ``schema`` nor ``serve``; each is imported when it runs
    (``grade validate`` and the others are exercised through ``main`` elsewhere)."""
    lazy = ["syncgrade.cli.author", "syncgrade.cli.batch", "syncgrade.cli.package",
            "syncgrade.cli.schema", "syncgrade.cli.serve"]
    code = ("import sys, syncgrade.cli; "
            f"print([m for m in {lazy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]", out


def test_a_grade_through_the_daemon_imports_only_its_client() -> None:
    """What a repeat grade through the daemon waits for besides the grade is mostly this
    process's start-up (docs/performance.md, figure 5): up to the request on the socket,
    ``grade EXERCISE`` imports neither the grader (pydantic, the rubric, the pool) nor
    what only the daemon needs (hashlib, which loads OpenSSL; tempfile and shutil, with
    their archive and compression modules, which argparse's help formatter imports)."""
    heavy = ["hashlib", "shutil", "tempfile", "pydantic", "syncgrade.grading",
             "syncgrade.pool", "syncgrade.courses", "syncgrade.rubric", "syncgrade.models"]
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from syncgrade.cli.daemon import _grade_message\n"
            "from syncgrade.cli.grade import grade_parser\n"
            "from syncgrade.cli.common import parse_anywhere\n"
            "from syncgrade.cli.request import Request\n"
            "from syncgrade import daemon\n"
            "parse_anywhere(grade_parser(), ['exercise-1', 'x.py', '--json'])\n"
            "_grade_message(Request('exercise-1', Path('x.py'), None))\n"
            "daemon.socket_path(), daemon.lock_path()\n"
            f"print([m for m in {heavy!r} if m in sys.modules])")
    env = {**os.environ, "SYNCGRADE_DAEMON_DIR": "/nonexistent/syncgrade-daemon"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    assert out.strip() == "[]", out
