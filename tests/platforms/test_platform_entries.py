"""The container entry points on simulated layouts: Gradescope's /autograder and
PrairieLearn's /grade under tmp_path. Each must always leave a valid results file and exit
0, whatever the configuration or the submission."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from platform_support import check_exercism, check_gradescope, check_prairielearn

from syncgrade.courses import get_exercise, module_name
from syncgrade.platforms import gradescope, prairielearn
from syncgrade.platforms.entry import (
    MISCONFIGURED,
    Config,
    exercism_main,
    find_submission,
    gradescope_main,
    hidden_paths_alert,
    lock_answers,
    run_entry,
)

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = (SOLUTIONS / "exercise-1" / "solution.py").read_text()
NO_WAIT = (COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py").read_text()


def _gradescope(root: Path, files: dict[str, str], config: dict[str, Any] | None = None,
                *args: str) -> tuple[int, dict[str, Any]]:
    for name, text in files.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    (root / "submission").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "source").mkdir(parents=True, exist_ok=True)
        (root / "source" / "syncgrade.json").write_text(json.dumps(config))
    code = gradescope_main(["--root", str(root), *args])
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope(results)
    return code, results


def test_gradescope_grades_the_submission(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, results = _gradescope(tmp_path, {"submission.py": NO_WAIT},
                                {"exercise": "exercise-1", "timeout": 30})
    assert code == 0
    assert 0 < results["score"] < get_exercise("exercise-1").max_score
    sync = next(t for t in results["tests"] if t["name"].startswith("sync-before-stop"))
    assert "perf_counter" in sync["output"]  # quotes the learner's own line
    assert str(tmp_path) not in json.dumps(results)  # platform paths never reach learners
    staff_log = capsys.readouterr().out  # Gradescope shows stdout to instructors only
    assert "exercise-1 submission.py: failed (graded)" in staff_log
    assert "What your timer measured" in staff_log


def test_gradescope_nested_file_and_env_exercise(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNCGRADE_EXERCISE", "exercise-1")
    code, results = _gradescope(tmp_path, {"hw/submission.py": SOLUTION,
                                           "hw/helper.py": "x = 1\n"})
    assert code == 0 and results["score"] == get_exercise("exercise-1").max_score


@pytest.mark.parametrize(("files", "says"), [
    ({"notes.txt": "hi"}, "no Python file"),
    ({"a.py": "x = 1\n", "b.py": "y = 2\n"}, "2 Python files (a.py, b.py)"),
    ({"submission.py": "", "__MACOSX/submission.py": "junk", ".x/c.py": ""}, "empty"),
])
def test_gradescope_submission_problems_are_the_learners_to_fix(
        tmp_path: Path, files: dict[str, str], says: str) -> None:
    code, results = _gradescope(tmp_path, files, {"exercise": "exercise-1"})
    assert code == 0 and results["score"] == 0
    assert results["extra_data"]["syncgrade"]["cause"] == "unreadable"
    assert says in results["tests"][0]["output"]


@pytest.mark.parametrize(("config", "args", "staff_sees"), [
    (None, (), "no exercise configured"),
    ({"exercise": "exercise-99"}, (), "unknown exercise"),
    ({"exercise": "exercise-1", "timout": 5}, (), "unknown key(s) timout"),
    ({"exercise": "exercise-1", "timeout": -1}, (), "timeout must be a number of seconds "
                                                    "above 0 and at most 3600, not -1"),
    ({"exercise": "exercise-1", "timeout": 1e9}, (), "at most 3600, not 1000000000.0"),
    ({"exercise": "exercise-1", "timeout": "60"}, (), "timeout must be a number of seconds"),
    ({"exercise": "exercise-1"}, ("--timeout", "nan"), "at most 3600, not nan"),
    ({"exercise": "exercise-1", "memory_gib": 0}, (), "memory_gib must be a number of GiB"),
    ({"exercise": "exercise-1", "memory_gib": 5000}, (), "at most 1024, not 5000"),
    ({"exercise": "exercise-1"}, ("--memory", "inf"), "at most 1024, not inf"),
    ({"exercise": "exercise-1"}, ("--timeout", "soon"), "bad arguments"),
])
def test_gradescope_bad_configuration_still_writes_results(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, Any] | None,
        args: tuple[str, ...], staff_sees: str) -> None:
    code, results = _gradescope(tmp_path, {"submission.py": SOLUTION}, config, *args)
    assert code == 0
    assert (results["score"], results["tests"], results["output"]) == (0.0, [], MISCONFIGURED)
    log = capsys.readouterr().out
    assert staff_sees in log and "Traceback" not in log


def test_a_broken_rubric_in_the_bundle_is_not_set_up_correctly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/platforms.md: a bad configuration is "not set up correctly", never "the grader
    # itself failed ... submit again"; the staff log names the author's file and line.
    course = tmp_path / "source" / "course" / "exercise-1"
    course.mkdir(parents=True)
    declaration = (COURSE / "exercise-1" / "exercise.py").read_text()
    broken = declaration.replace('    return {"predict": tolerance.tanh_matmul',
                                 '    return {"predict": 1 / 0 + tolerance.tanh_matmul')
    (course / "exercise.py").write_text(broken)
    line = next(n for n, text in enumerate(broken.splitlines(), 1) if "1 / 0" in text)
    docs = (ROOT / "docs" / "platforms.md").read_text()
    assert 'gives a results file with 0 points and the output "The autograder is not set up\n' \
           '    correctly' in docs
    code, results = _gradescope(tmp_path, {"submission.py": SOLUTION},
                                {"exercise": "exercise-1", "course": "course"})
    assert code == 0
    assert (results["score"], results["tests"], results["output"]) == (0.0, [], MISCONFIGURED)
    assert MISCONFIGURED.startswith("The autograder is not set up correctly")
    log = capsys.readouterr().out
    assert f"{course / 'exercise.py'}:{line}: make_references() raised ZeroDivisionError" in log


def test_gradescope_config_that_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "syncgrade.json").write_text("{exercise: 1")
    code, results = _gradescope(tmp_path, {"submission.py": SOLUTION})
    assert code == 0 and results["output"] == MISCONFIGURED


def test_a_bug_in_the_entry_still_writes_results(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("adapter bug")

    monkeypatch.setattr(gradescope, "to_gradescope", broken)
    code, results = _gradescope(tmp_path, {"submission.py": "x = (\n"},
                                {"exercise": "exercise-1"})
    assert code == 0 and "not your fault" in results["output"]
    assert "adapter bug" in capsys.readouterr().out  # for staff, not in results
    assert "adapter bug" not in json.dumps(results)


def test_a_planted_results_link_is_replaced_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").symlink_to(target)
    code, _ = _gradescope(tmp_path, {"submission.py": ""}, {"exercise": "exercise-1"})
    assert code == 0 and target.read_text() == "keep"
    assert not (tmp_path / "results" / "results.json").is_symlink()


def _prairielearn(root: Path, student: dict[str, str], params: dict[str, Any] | None,
                  env: dict[str, str] | None = None) -> dict[str, Any]:
    for name, text in student.items():
        (root / "student").mkdir(parents=True, exist_ok=True)
        (root / "student" / name).write_text(text)
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "data.json").write_text(json.dumps(
        {"params": {"syncgrade": params} if params is not None else {},
         "submitted_answers": {}}))
    assert run_entry(prairielearn.layout(), ["--root", str(root)], environ=env or {}) == 0
    results = json.loads((root / "results" / "results.json").read_text())
    check_prairielearn(results)
    return results


def test_prairielearn_syntax_error_is_not_gradable(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = _prairielearn(tmp_path, {"submission.py": "def f(:\n"},
                            {"exercise": "exercise-1"})
    assert results["gradable"] is False and "line 1" in results["format_errors"][0]
    assert "What your timer" not in capsys.readouterr().out  # PL logs one line only


def test_prairielearn_grades_and_env_overrides_params(tmp_path: Path) -> None:
    results = _prairielearn(tmp_path, {"answer.py": SOLUTION}, {"exercise": "exercise-99"},
                            env={"SYNCGRADE_EXERCISE": "exercise-1"})
    assert (results["gradable"], results["score"]) == (True, 1.0)


def test_prairielearn_missing_student_folder_is_misconfiguration(tmp_path: Path) -> None:
    results = _prairielearn(tmp_path, {}, {"exercise": "exercise-1"})
    assert results["gradable"] is False and results["message"] == MISCONFIGURED


def test_find_submission_prefers_the_shallowest_named_file(tmp_path: Path) -> None:
    for name in ("deep/er/submission.py", "deep/submission.py", "other.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert find_submission(tmp_path) == (tmp_path / "deep" / "submission.py", "")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "submission.py").write_text("")
    path, problem = find_submission(tmp_path)
    assert path is None and "2 files named submission.py" in problem


def test_the_module_runs_as_run_autograder(tmp_path: Path) -> None:
    """As Gradescope runs it: a fresh process, the module's own __main__."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "submission.py").write_text("def f(:\n")
    env = {**os.environ, "SYNCGRADE_EXERCISE": "exercise-1"}
    result = subprocess.run([sys.executable, "-m", "syncgrade.platforms.entry", "gradescope",
                             "--root", str(tmp_path)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    check_gradescope(results)
    assert "SyntaxError on line 1" in results["tests"][0]["output"]


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "exercism"])
def test_a_closed_stdout_still_gets_a_results_file(tmp_path: Path, platform: str) -> None:
    """stdout a pipe nobody reads (closed before the entry writes a byte): the results
    file is written first, the lost staff log is the only casualty, exit 0, no traceback."""
    folder = {"gradescope": "submission", "prairielearn": "student",
              "exercism": "solution"}[platform]
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "submission.py").write_text(NO_WAIT)
    if platform == "exercism":
        args = ["exercise-1", str(tmp_path / "solution"), str(tmp_path / "out")]
        results_path = tmp_path / "out" / "results.json"
    else:
        args = ["--root", str(tmp_path), "--exercise", "exercise-1"]
        results_path = tmp_path / "results" / "results.json"
    env = {k: v for k, v in os.environ.items() if k != "SYNCGRADE_EXERCISE"}
    child = subprocess.Popen([sys.executable, "-m", "syncgrade.platforms.entry", platform,
                              *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone: every write to stdout is EPIPE
    err = child.stderr.read().decode()
    assert child.wait(timeout=300) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    results = json.loads(results_path.read_text())
    {"gradescope": check_gradescope, "prairielearn": check_prairielearn,
     "exercism": check_exercism}[platform](results)
    assert "sync-before-stop" in json.dumps(results)  # a real grade, not the fallback


def test_run_autograder_piped_into_head(tmp_path: Path) -> None:
    """`syncgrade-gradescope ... | head -2`, as a shell runs it."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "submission.py").write_text(NO_WAIT)
    command = (f"{sys.executable} -m syncgrade.platforms.entry gradescope --root {tmp_path} "
               "--exercise exercise-1 | head -2; echo \"exit ${PIPESTATUS[0]}\"")
    shown = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                           timeout=300)
    assert shown.stdout.splitlines()[0].startswith("syncgrade gradescope: exercise-1")
    assert shown.stdout.splitlines()[-1] == "exit 0", shown.stderr
    assert "Traceback" not in shown.stderr
    check_gradescope(json.loads((tmp_path / "results" / "results.json").read_text()))


def test_exercism_entry_without_its_three_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert exercism_main(["exercise-1", "/tmp"]) == 2
    assert "usage: syncgrade-exercism SLUG INPUT_DIR OUTPUT_DIR" in capsys.readouterr().err


def test_exercism_config_beside_the_solution_cannot_reveal_or_change_the_course(
        tmp_path: Path) -> None:
    """INPUT_DIR is the learner's solution folder: its .meta/syncgrade.json may name the
    exercise, but `reveal` and `course` come only from options or the environment."""
    from syncgrade.platforms.entry import ConfigError, load_config
    from syncgrade.platforms.exercism import layout

    meta = tmp_path / ".meta"
    meta.mkdir()
    (meta / "syncgrade.json").write_text('{"exercise": "exercise-1"}')
    assert load_config(layout(), tmp_path, {}, {}).exercise == "exercise-1"
    for key, value in (("reveal", "true"), ("course", '"/tmp/mine"')):
        (meta / "syncgrade.json").write_text(f'{{"exercise": "exercise-1", "{key}": {value}}}')
        with pytest.raises(ConfigError, match=f"may not set {key}"):
            load_config(layout(), tmp_path, {}, {})
    (meta / "syncgrade.json").write_text('{"exercise": "exercise-1"}')
    assert load_config(layout(), tmp_path, {"reveal": True}, {}).reveal is True


def _locking(monkeypatch: pytest.MonkeyPatch, namespaces: bool, course: Path) -> None:
    """lock_answers as if run here without (or with) namespaces, its hidden folders only
    ``course`` (the real ones are this checkout's package folders)."""
    import syncgrade.pool
    from syncgrade import sandbox

    monkeypatch.setattr(sandbox, "namespaces_available", lambda: namespaces)
    monkeypatch.setattr(syncgrade.pool, "child_command",
                        lambda hidden=(): SimpleNamespace(hidden_paths=tuple(hidden)))


@pytest.mark.parametrize(("platform", "staff"), [
    ("gradescope", "source"), ("prairielearn", "tests"), ("exercism", ".meta")])
@pytest.mark.skipif(os.geteuid() != 0, reason="locking is what a root grader does")
def test_without_namespaces_the_answers_are_locked_to_root(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, platform: str, staff: str) -> None:
    from syncgrade.platforms import exercism

    layout = {"gradescope": gradescope, "prairielearn": prairielearn,
              "exercism": exercism}[platform].layout()
    course = tmp_path / "course"
    shutil.copytree(COURSE / "exercise-1", course / "exercise-1",
                    ignore=shutil.ignore_patterns("corpus", "__pycache__"))
    answers = tmp_path / "answers"  # the solutions outside the course (course.toml says)
    shutil.copytree(SOLUTIONS / "exercise-1", answers / "exercise-1")
    (course / "course.toml").write_text('solutions = "../answers"\n')
    (tmp_path / staff).mkdir(mode=0o755)
    for folder in (course, answers, tmp_path):  # tmp_path: the platform's root
        folder.chmod(0o755)
    config = Config(exercise="exercise-1", course=str(course))
    _locking(monkeypatch, True, course)
    assert lock_answers(layout, tmp_path, config, []) == []  # the jail will mask them
    assert course.stat().st_mode & 0o777 == 0o755
    _locking(monkeypatch, False, course)
    alerts: list[str] = []
    assert lock_answers(layout, tmp_path, config, alerts) == [course, answers,
                                                              tmp_path / staff]
    for folder in (course, answers, tmp_path / staff):
        assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == 0
    assert alerts == [] and tmp_path.stat().st_mode & 0o777 != 0o700  # root itself stays


def test_the_staff_warning_names_what_the_sandbox_said() -> None:
    from syncgrade.models import Protection

    assert hidden_paths_alert([]) == []  # nothing was run: nothing to warn about
    masked = Protection(name="hidden-paths", applied=True, detail="masked")
    assert hidden_paths_alert([masked]) == []
    alert = hidden_paths_alert([Protection(name="hidden-paths", applied=False,
                                           detail="child runs as ROOT"),
                                Protection(name="drop-privileges", applied=False,
                                           detail="uid 7 could not")])
    assert len(alert) == 1 and "WARNING" in alert[0]
    assert "child runs as ROOT" in alert[0] and "uid 7 could not" in alert[0]


@pytest.mark.parametrize("platform", ["gradescope", "exercism"])
def test_without_protection_the_entry_refuses_unless_the_operator_opts_in(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, platform: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Fail closed (docs/security.md): when the sandbox says a child could read the
    course's hidden files, no learner code runs, the learner reads "not set up
    correctly" and the staff log one line naming why; ``SYNCGRADE_ALLOW_UNPROTECTED=1``
    grades anyway, with the staff warning."""
    import syncgrade.grading
    from syncgrade import sandbox
    from syncgrade.platforms.entry import UNPROTECTED_ENV

    asked: list[list[str]] = []
    graded: list[Any] = []
    real = syncgrade.grading.grade_result

    def counted(*args: Any, **kwargs: Any) -> Any:
        graded.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(syncgrade.grading, "grade_result", counted)

    def unprotected(argv0: str, hidden: list[str], **_: Any) -> str:
        asked.append(hidden)
        return "an unprivileged uid cannot reach /opt/py, so learner code would run as ROOT"

    monkeypatch.setattr(sandbox, "unprotected_reason", unprotected)
    monkeypatch.delenv(UNPROTECTED_ENV, raising=False)
    root = tmp_path / "root"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "submission.py").write_text("def f(:\n")

    def run(*extra: str) -> dict[str, Any]:
        if platform == "gradescope":
            assert gradescope_main(["--root", str(root), "--exercise", "exercise-1",
                                    *extra]) == 0
            results = json.loads((root / "results" / "results.json").read_text())
            check_gradescope(results)
            return results
        assert exercism_main(["exercise-1", str(root / "submission"), str(root / "out"),
                              *extra]) == 0
        results = json.loads((root / "out" / "results.json").read_text())
        check_exercism(results)
        return results

    results = run()
    out = capsys.readouterr().out
    assert MISCONFIGURED in json.dumps(results) and graded == []  # nothing ran
    refusal = [line for line in out.splitlines() if "refused to grade" in line]
    assert len(refusal) == 1 and "would run as ROOT" in refusal[0]
    assert UNPROTECTED_ENV in refusal[0] and "/opt/py" not in json.dumps(results)
    assert any(str(COURSE.resolve()) in map(str, hidden) for hidden in asked)
    for allow in (["--allow-unprotected"], []):
        if not allow:
            monkeypatch.setenv(UNPROTECTED_ENV, "1")
        results = run(*allow)
        assert MISCONFIGURED not in json.dumps(results) and graded
        assert "refused" not in capsys.readouterr().out
        graded.clear()


def test_a_run_that_was_not_protected_after_all_is_not_shown(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The check before the grade said the protection would hold, the run says it did
    not: the learner still reads "not set up correctly", never what the run printed."""
    import syncgrade.grading
    from syncgrade.models import Protection

    real = syncgrade.grading.grade_result

    def unprotected_run(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        hidden = Protection(name="hidden-paths", applied=False, detail="child runs as ROOT")
        grading = result.report.grading.model_copy(update={"protections": [hidden]})
        report = result.report.model_copy(update={"grading": grading})
        return type(result)(report=report, source_lines=result.source_lines)

    monkeypatch.setattr(syncgrade.grading, "grade_result", unprotected_run)
    code, results = _gradescope(tmp_path, {"submission.py": "print('secret-ish')\ndef f(:\n"},
                                {"exercise": "exercise-1"})
    assert code == 0 and results["output"] == MISCONFIGURED
    assert "secret-ish" not in json.dumps(results)
    assert "refused to grade: learner code could read" in capsys.readouterr().out


def test_the_exercism_entry_starts_its_child_before_loading_the_grader(
        tmp_path: Path) -> None:
    """A loaded machine's CPU seconds (docs/platforms.md, "Time limits on each
    platform"): the entry starts its grading child (which imports jax) before it imports
    the course loader, the rubric or the grading engine, then loads only the graded
    exercise's declaration, and never imports jax itself."""
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "submission.py").write_text("def f(:\n")
    code = f"""if True:
        import json, sys
        import syncgrade.pool as pool
        before = []
        real = pool.prestart
        def prestart(*args, **kwargs):
            before.extend(sys.modules)
            return real(*args, **kwargs)
        pool.prestart = prestart
        from syncgrade.platforms.entry import exercism_main
        code = exercism_main(["exercise-1", {str(solution)!r}, {str(tmp_path / "out")!r}])
        print(json.dumps({{"code": code, "before": before, "after": list(sys.modules)}}))
    """
    env = {k: v for k, v in os.environ.items() if k not in ("SYNCGRADE_COURSE",
                                                             "SYNCGRADE_EXERCISE")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    seen = json.loads(out.splitlines()[-1])
    assert seen["code"] == 0 and seen["before"], out
    early = [m for m in seen["before"] if m.split(".")[0] == "jax" or m in (
        "syncgrade.courses", "syncgrade.rubric", "syncgrade.grading")]
    assert early == [], early
    declarations = [m for m in seen["after"] if m.startswith("_syncgrade_course_")]
    assert declarations == [module_name(COURSE.resolve(), "exercise-1")]
    assert "jax" not in seen["after"]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    check_exercism(results)
    assert "failed (syntax_error)" in out, out  # graded: the learner's, on their line
    assert results["status"] == "error" and "line 1" in json.dumps(results)


def test_an_entry_whose_own_start_ate_the_budget_starts_nothing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Started so long ago (a loaded machine's interpreter start and imports) that the
    learner's whole timeout no longer fits before the deadline: a grader fault at once,
    one staff line, no child started and no course loaded for nothing."""
    import time

    import syncgrade.pool

    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a child was started")

    monkeypatch.setattr(syncgrade.pool, "prestart", no_child)
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "submission.py").write_text(SOLUTION)
    late = time.monotonic() - 7.0  # of Exercism's 8 + 9 s: 10 s left, 8 + 3 needed
    assert exercism_main(["exercise-1", str(solution), str(tmp_path / "out")],
                         started_at=late) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    check_exercism(results)
    assert results["status"] == "error"
    staff = capsys.readouterr().out
    assert "OutOfTime: no grading child was started" in staff and "8 s" in staff
