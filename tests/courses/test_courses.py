"""A course is a folder: finding one (a path, $SYNCGRADE_COURSE, an installed course's
entry point), loading its declarations from their files, and every entry point taking
one, while nothing of the course folder is visible to the learner's code."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import syncgrade
from syncgrade import cli, courses, pool
from syncgrade.authoring.scaffold import scaffold
from syncgrade.courses import CourseError, get_exercise, open_course
from syncgrade.grading import job
from syncgrade.platforms import gradescope
from syncgrade.platforms.entry import load_config
from syncgrade.rubric import RubricError, UnknownExercise


def _course(tmp_path: Path, *ids: str, name: str = "course") -> Path:
    root = tmp_path / name
    for exercise_id in ids or ("exercise-3",):
        scaffold(exercise_id, f"Title of {exercise_id}", root)
    return root


def test_a_course_folder_holds_its_exercises_in_number_order(tmp_path: Path) -> None:
    root = _course(tmp_path, "exercise-12", "exercise-3")
    (root / "shared").mkdir()  # not an exercise: no exercise.py, not named exercise-N
    (root / ".git").mkdir()
    course = open_course(root)
    assert course.root == root.resolve() and course.title == "course"
    assert list(course.exercises) == ["exercise-3", "exercise-12"] == list(course.files)
    assert course.errors == {}
    files = course.folder("exercise-3")
    assert files.declaration == root.resolve() / "exercise-3" / "exercise.py"
    assert [files.stub.name, files.solution.name, files.mutants.name] == [
        "stub.py", "solution.py", "mutants.toml"]
    assert [p.name for p in files.corpus_files("flawed")] == ["no_wait.py"]
    exercise = course.get("exercise-3")
    assert exercise.title == "Title of exercise-3"
    assert exercise.statement.startswith("# Exercise 3: Title of exercise-3")
    assert course.module("exercise-3").REPEATS == 6
    assert course.hidden_paths == (root.resolve(),)
    assert open_course(root) is course  # once per process


def test_course_toml_gives_the_title_and_a_typo_is_refused(tmp_path: Path) -> None:
    root = _course(tmp_path)
    (root / "course.toml").write_text('title = "Benchmarking JAX, autumn"\n')
    assert open_course(root, reload=True).title == "Benchmarking JAX, autumn"
    (root / "course.toml").write_text('titel = "x"\n')
    with pytest.raises(CourseError, match="unknown key 'titel' \\(did you mean 'title'\\?\\)"):
        open_course(root, reload=True)


def _outside_solutions(tmp_path: Path) -> tuple[Path, Path]:
    """A course whose course.toml keeps its solutions in ../answers (the built-in course's
    layout: exercises/ and solutions/); returns the course and the solutions folder."""
    root = _course(tmp_path)
    answers = tmp_path / "answers"
    (answers / "exercise-3").mkdir(parents=True)
    (root / "exercise-3" / "solution.py").rename(answers / "exercise-3" / "solution.py")
    (root / "course.toml").write_text('title = "T"\nsolutions = "../answers"\n')
    return root, answers.resolve()


def test_course_toml_may_keep_the_solutions_outside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, answers = _outside_solutions(tmp_path)
    monkeypatch.setenv(courses.COURSE_ENV, str(root))  # named, not opened yet: still hidden
    assert pool.covers(pool.child_command(), [root, answers])
    monkeypatch.delenv(courses.COURSE_ENV)
    course = open_course(root, reload=True)
    assert course.errors == {} and course.solutions == answers
    assert course.folder("exercise-3").solution == answers / "exercise-3" / "solution.py"
    assert course.hidden_paths == (root.resolve(), answers)
    assert courses.course_hidden_paths(root.resolve()) == course.hidden_paths
    # Every way to the child hides the solutions too: the grade's own paths, pools.
    assert job.hidden_paths(course.get("exercise-3")) == (root.resolve(), answers)
    assert pool.covers(pool.child_command(), [root, answers])  # an opened course's
    builtin = courses.builtin_course()
    assert builtin.solutions is not None and builtin.solutions.name == "solutions"
    assert builtin.folder("exercise-1").solution.is_relative_to(builtin.solutions)
    assert pool.covers(pool.child_command(), builtin.hidden_paths)
    for wrong in ('"/abs"', '"."', '".."', "3", '""'):
        (root / "course.toml").write_text(f"solutions = {wrong}\n")
        with pytest.raises(CourseError, match="solutions"):
            open_course(root, reload=True)


def test_two_courses_with_the_same_ids_never_clash(tmp_path: Path) -> None:
    first = _course(tmp_path, "exercise-1", name="first")
    second = _course(tmp_path, "exercise-1", name="second")
    declaration = second / "exercise-1" / "exercise.py"
    declaration.write_text(declaration.read_text().replace(
        "title='Title of exercise-1'", "title='Another title'"))
    a = get_exercise("exercise-1", course=first)
    b = get_exercise("exercise-1", course=second)
    assert (a.title, b.title) == ("Title of exercise-1", "Another title")
    assert open_course(first).module("exercise-1") is not open_course(second).module(
        "exercise-1")
    # ...and neither is the built-in exercise-1.
    assert get_exercise("exercise-1").title == "Time a completed result"


def test_a_broken_declaration_names_its_file_and_the_rest_still_load(tmp_path: Path) -> None:
    root = _course(tmp_path, "exercise-1", "exercise-2")
    declaration = root / "exercise-2" / "exercise.py"
    declaration.write_text(declaration.read_text() + "\nboom = undefined_name\n")
    (root / "exercise-4").mkdir()  # an exercise folder without a declaration
    course = open_course(root)
    assert list(course.exercises) == ["exercise-1"]
    lines = declaration.read_text().splitlines()
    assert f"{declaration}:{len(lines)}: failed to import: NameError" in str(
        course.errors["exercise-2"])
    assert "NameError" in str(course.errors["exercise-2"])
    assert "no declaration" in str(course.errors["exercise-4"])
    with pytest.raises(RubricError, match="exercise-2"):
        course.get("exercise-2")


def test_an_unknown_id_suggests_the_nearest(tmp_path: Path) -> None:
    root = _course(tmp_path)
    with pytest.raises(UnknownExercise, match="did you mean 'exercise-3'"):
        get_exercise("exercise-33", course=root)
    with pytest.raises(CourseError, match="no course folder at"):
        open_course(tmp_path / "nowhere")


def test_syncgrade_course_names_the_default_course(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = _course(tmp_path)
    monkeypatch.setenv(courses.COURSE_ENV, str(root))
    assert open_course().root == root.resolve()
    assert get_exercise("exercise-3").title == "Title of exercise-3"
    assert root.resolve() in pool.child_command().hidden_paths  # pools hide it too
    monkeypatch.delenv(courses.COURSE_ENV)
    assert open_course().builtin


def test_an_installed_course_by_its_entry_point(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = _course(tmp_path)
    points = {
        "by-function": SimpleNamespace(value="pkg:course_dir", load=lambda: lambda: root),
        "by-attribute": SimpleNamespace(value="pkg:COURSE", load=lambda: str(root)),
        "broken": SimpleNamespace(value="pkg:gone", load=lambda: tmp_path / "gone"),
    }
    monkeypatch.setattr(courses, "course_entry_points",
                        lambda: {name: [point] for name, point in points.items()})
    assert open_course("by-function").root == root.resolve()
    assert open_course("by-attribute").root == root.resolve()
    with pytest.raises(CourseError, match=r"'broken' .* which is not a folder"):
        open_course("broken")
    with pytest.raises(CourseError, match="installed: broken, by-attribute, by-function"):
        open_course("nothing-like-it")


def test_pools_only_serve_courses_they_hide(tmp_path: Path) -> None:
    root = _course(tmp_path)
    command = pool.child_command()
    assert pool.covers(command, [courses.BUILTIN_ROOT])
    assert not pool.covers(command, [tmp_path / "other"])
    assert pool.covers(pool.child_command([tmp_path / "other"]), [tmp_path / "other"])
    open_course(root)
    assert pool.covers(pool.child_command(), [root])  # every course opened so far


LEAK = '''\
import os, sys

def timed_samples(fn, args, repeats):
    raise RuntimeError("not graded")

for path in sys.argv[1:] or PATHS:
    try:
        with open(path) as handle:
            handle.read(1)
        print("READ", path)
    except OSError as exc:
        print("DENIED", path, exc.errno)
'''


def test_the_child_never_sees_the_course_folder(tmp_path: Path) -> None:
    """Nor its solutions folder outside it (course.toml's ``solutions``), nor the
    built-in course's (exercises/ and solutions/ in a checkout)."""
    root, answers = _outside_solutions(tmp_path)
    folder = root / "exercise-3"
    paths = [folder / name for name in ("exercise.py", "mutants.toml")]
    paths += [folder / "corpus" / "correct" / "waits_each_call.py", root / "course.toml",
              answers / "exercise-3" / "solution.py"]
    builtin = courses.builtin_course().folder("exercise-1")
    paths += [builtin.solution, builtin.declaration]
    source = f"PATHS = {[str(p) for p in paths]!r}\n" + LEAK
    report = syncgrade.grade("exercise-3", source=source, course=root)
    out = report.stdout.text
    applied = {p.name: p.applied for p in report.grading.protections}
    if not applied.get("hidden-paths"):  # basic mode: nothing is hidden, and it says so
        pytest.skip("no namespace jail here (docs/security.md, basic mode)")
    assert out.count("DENIED") == len(paths), out
    assert "READ" not in out


def test_the_cli_takes_a_course_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = _course(tmp_path)
    assert cli.main(["list", "--course", str(root)]) == 0
    assert capsys.readouterr().out.split() == ["exercise-3", "Title", "of", "exercise-3"]
    assert cli.main(["list", "--json", "--course", str(root)]) == 0
    assert [e["id"] for e in json.loads(capsys.readouterr().out)["exercises"]] == [
        "exercise-3"]
    learner = tmp_path / "learner"
    learner.mkdir()
    monkeypatch.chdir(learner)
    assert cli.main(["start", "exercise-3", "--course", str(root)]) == 0
    stub = learner / "exercises" / "exercise-3" / "submission.py"
    assert stub.read_bytes() == (root / "exercise-3" / "stub.py").read_bytes()
    assert (stub.parent / "README.md").read_bytes() == (
        root / "exercise-3" / "README.md").read_bytes()
    assert not (stub.parent / "solution.py").exists()
    capsys.readouterr()
    assert cli.main(["exercise-3", "--course", str(root), "--json"]) == 1  # the stub
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "failed" and report["checks"][0]["status"] == "passed"
    assert cli.main(["exercise-1", "--course", str(root)]) == 2
    assert "did you mean 'exercise-3'" in capsys.readouterr().err
    assert cli.main(["list", "--course", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.startswith("grade: no course folder at ")


def test_platforms_read_the_course_from_their_configuration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    course = _course(tmp_path / "autograder" / "source", name="my-course")
    root = tmp_path / "autograder"
    (root / "source" / "syncgrade.json").write_text(json.dumps(
        {"exercise": "exercise-3", "course": "my-course"}))
    config = load_config(gradescope.layout(), root, {}, {})
    assert config.course == str(course.resolve())
    env = {"SYNCGRADE_COURSE": str(course), "SYNCGRADE_EXERCISE": "exercise-3"}
    (root / "source" / "syncgrade.json").unlink()
    assert load_config(gradescope.layout(), root, {}, env).course == str(course)
    assert load_config(gradescope.layout(), root, {"exercise": "exercise-1"}, {}).course == \
        str(courses.BUILTIN_ROOT)  # nothing configured: the built-in course


def test_a_leftover_package_course_folder_without_course_toml_is_not_the_builtin_course(
        tmp_path: Path) -> None:
    """A checkout from before the move to exercises/ keeps src/syncgrade/course/ with only
    __pycache__ in it (git leaves untracked files): that is not the built-in course."""
    from syncgrade.courses import builtin_root

    packaged, checkout = tmp_path / "course", tmp_path / "exercises"
    (packaged / "exercise-1" / "__pycache__").mkdir(parents=True)
    assert builtin_root(packaged, checkout) == checkout
    (packaged / "course.toml").write_text('title = "x"\n', encoding="utf-8")
    assert builtin_root(packaged, checkout) == packaged


def _distribution(site: Path, name: str, value: str, course: str = "same-name") -> None:
    """An installed distribution ``name`` (a ``.dist-info`` folder on ``site``) declaring
    the course entry point ``course = value``."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{courses.ENTRY_POINT_GROUP}]\n"
                                           f"{course} = {value}\n")


def test_two_installed_courses_of_one_name_are_refused(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    _distribution(site, "course_a", "course_a:ROOT")
    _distribution(site, "course_b", "course_b:ROOT")
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(CourseError) as raised:
        open_course("same-name")
    assert str(raised.value) == (
        "2 installed courses are named 'same-name': course_a 1.0 (course_a:ROOT) and "
        "course_b 1.0 (course_b:ROOT); uninstall one, or rename its entry point in the "
        "group 'syncgrade.courses'")
    # Another installed course's name still opens (only the duplicated name is refused).
    _distribution(site, "course_c", "course_c:ROOT", course="other")
    other = _course(tmp_path / "o")
    (site / "course_c.py").write_text(f"ROOT = {str(other)!r}\n")
    assert open_course("other").root == other.resolve()
    # One distribution alone is found as before.
    (site / "course_b-1.0.dist-info" / "entry_points.txt").write_text("")
    root = _course(tmp_path / "c")
    (site / "course_a.py").write_text(f"ROOT = {str(root)!r}\n")
    assert open_course("same-name").root == root.resolve()


def test_one_exercise_opens_without_the_other_declarations(tmp_path: Path) -> None:
    """open_exercise (the platform entry points' way in) imports and validates only the
    declaration asked for: another exercise's broken declaration is never run, every
    folder is still known (an unknown id gets its did-you-mean), another exercise loads
    when first asked for, and opening the course whole later completes the same course
    (one Exercise object per declaration)."""
    root = _course(tmp_path, "exercise-1", "exercise-2", "exercise-3")
    marker = tmp_path / "imported"
    (root / "exercise-2" / "exercise.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nraise RuntimeError('broken')\n")
    course = courses.open_exercise(root, "exercise-3")
    assert not course.whole and list(course.exercises) == ["exercise-3"]
    assert list(course.files) == ["exercise-1", "exercise-2", "exercise-3"]
    assert course.modules.keys() == {"exercise-3"} and not marker.exists()
    exercise = course.get("exercise-3")
    assert courses.open_exercise(root, "exercise-3") is course  # once per process
    with pytest.raises(UnknownExercise, match="did you mean 'exercise-3'"):
        course.get("exercise-33")
    assert course.get("exercise-1").id == "exercise-1"  # loaded when asked for
    assert root.resolve() in courses.opened_roots()
    whole = open_course(root)
    assert whole is course and whole.whole and marker.exists()
    assert list(whole.exercises) == ["exercise-1", "exercise-3"]  # number order
    assert whole.get("exercise-3") is exercise and "exercise-2" in whole.errors
    courses.forget(root)
