"""`grade start` and packaging: the built-in course's declarations, statements and stubs
ship in the wheel; its solutions, mutants and corpus never do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from syncgrade.courses import EXERCISES
from syncgrade.starter import StarterError, start

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "src" / "syncgrade" / "course"  # the built-in course


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_start_copies_statement_and_stub(tmp_path: Path, exercise: str) -> None:
    written = start(exercise, tmp_path)
    stub = COURSE / exercise / "stub.py"
    assert [p.name for p in written] == ["README.md", "submission.py"]
    assert written[1].read_bytes() == stub.read_bytes()


def test_start_never_overwrites_work_without_force(tmp_path: Path) -> None:
    (submission := start("exercise-1", tmp_path)[1]).write_text("# my work\n")
    with pytest.raises(StarterError, match="already exists"):
        start("exercise-1", tmp_path)
    assert submission.read_text() == "# my work\n"
    start("exercise-1", tmp_path, force=True)
    assert submission.read_text() != "# my work\n"


def test_cli_start_reports_what_it_wrote(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "syncgrade.cli", "start", "exercise-1"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "wrote exercises/exercise-1/submission.py" in result.stdout
    again = subprocess.run([sys.executable, "-m", "syncgrade.cli", "start", "exercise-1"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--force" in again.stderr


@pytest.mark.wheel
def test_wheel_ships_the_builtin_course_but_no_solutions(built_wheel: Path) -> None:
    names = zipfile.ZipFile(built_wheel).namelist()
    assert "syncgrade/course/course.toml" in names
    for exercise in EXERCISES:
        for name in ("exercise.py", "README.md", "stub.py"):
            assert f"syncgrade/course/{exercise}/{name}" in names, (exercise, name)
    shipped = [n for n in names if n.startswith("syncgrade/course/")]
    assert not [n for n in shipped if n.rsplit("/", 1)[-1] in ("solution.py", "mutants.toml")
                or "/corpus/" in n]
    assert not [n for n in names if "solution" in n.lower()]
    solution = (COURSE / "exercise-1" / "solution.py").read_bytes()
    with zipfile.ZipFile(built_wheel) as archive:
        assert all(archive.read(n) != solution for n in names if n.endswith(".py"))


# ------------------------------------------------------------------ always the pristine stub


def _cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_a_learner_in_the_clone_never_edits_the_stub(tmp_path: Path) -> None:
    """The README's quick start: a clone with an editable install, `grade start` in its
    root. (Before the course moved into the package, the package's stubs were a link to
    the clone's tracked exercises/ folder, so `grade start` there read and wrote the same
    file: --force restored nothing and a start elsewhere handed out the learner's
    solution.) After editing the started file, --force gives the pristine stub back,
    and a start in a second folder gives the pristine stub too."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "src", clone / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {**os.environ, "PYTHONPATH": str(clone / "src")}  # what `pip install -e .` does
    where = subprocess.run([sys.executable, "-c", "import syncgrade; print(syncgrade.__file__)"],
                           cwd=clone, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.strip().startswith(str(clone)), where.stdout + where.stderr
    stub = clone / "src" / "syncgrade" / "course" / "exercise-1" / "stub.py"
    pristine = stub.read_bytes()

    _cli("start", "exercise-1", cwd=clone, env=env)
    started = clone / "exercises" / "exercise-1" / "submission.py"
    solution = (COURSE / "exercise-1" / "solution.py").read_bytes()
    started.write_bytes(solution)  # the learner's work
    _cli("start", "exercise-1", "--force", cwd=clone, env=env)
    assert started.read_bytes() == pristine
    assert stub.read_bytes() == pristine

    started.write_bytes(solution)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _cli("start", "exercise-1", cwd=elsewhere, env=env)
    assert (elsewhere / "exercises" / "exercise-1" / "submission.py").read_bytes() == pristine
    assert stub.read_bytes() == pristine


def test_the_clones_exercises_folder_is_ignored_by_git() -> None:
    """Where `grade start` writes in a checkout is the learner's, never a tracked file."""
    assert not subprocess.run(["git", "ls-files", "exercises"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout
    ignored = subprocess.run(["git", "check-ignore", "-q", "exercises/exercise-1/submission.py"],
                             cwd=ROOT, timeout=30)
    assert ignored.returncode == 0


def _small_course(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    (course / "exercise-1").mkdir(parents=True)
    for name in ("exercise.py", "README.md", "stub.py"):
        shutil.copy(COURSE / "exercise-1" / name, course / "exercise-1" / name)
    return course


def test_start_never_writes_into_the_course_folder(tmp_path: Path) -> None:
    course = _small_course(tmp_path)
    with pytest.raises(StarterError, match="inside the course folder"):
        start("exercise-1", course, course=course)
    assert not (course / "exercises").exists()
    # Nor through a link to it: the learner would edit the course's own files.
    linked = tmp_path / "work" / "exercises"
    linked.mkdir(parents=True)
    (linked / "exercise-1").symlink_to(course / "exercise-1")
    with pytest.raises(StarterError, match="inside the course folder"):
        start("exercise-1", tmp_path / "work", course=course, force=True)
    assert (course / "exercise-1" / "README.md").read_bytes() == \
        (COURSE / "exercise-1" / "README.md").read_bytes()
    assert not (course / "exercise-1" / "submission.py").exists()


def test_start_from_inside_exercises_writes_beside_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from syncgrade.cli import main

    start("exercise-1", tmp_path)
    monkeypatch.chdir(tmp_path / "exercises" / "exercise-1")
    assert main(["start", "exercise-2"]) == 0
    assert (tmp_path / "exercises" / "exercise-2" / "submission.py").is_file()
    assert "wrote ../exercise-2/submission.py" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path / "exercises")
    assert main(["start", "exercise-3"]) == 0
    assert (tmp_path / "exercises" / "exercise-3" / "submission.py").is_file()
    assert not (tmp_path / "exercises" / "exercises").exists()
