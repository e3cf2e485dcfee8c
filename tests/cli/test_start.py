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
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions


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
    assert len(shipped) == 1 + 3 * len(EXERCISES)  # nothing else of exercises/ ships
    assert not [n for n in shipped if n.rsplit("/", 1)[-1] in ("solution.py", "mutants.toml")
                or "/corpus/" in n]
    assert not [n for n in names if n.startswith(("exercises/", "solutions/"))
                or n.endswith("mutants.toml") or "/corpus/" in n]
    assert not [n for n in names if "solution" in n.lower()]
    solution = (SOLUTIONS / "exercise-1" / "solution.py").read_bytes()
    with zipfile.ZipFile(built_wheel) as archive:
        assert all(archive.read(n) != solution for n in names if n.endswith(".py"))


def test_the_wheel_lists_every_package_and_maps_the_course_to_exercises() -> None:
    """pyproject.toml lists the packages by hand (the built-in course is mapped from the
    checkout's exercises/): the list is find_packages("src") and the course, no more."""
    import tomllib

    import setuptools

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert sorted(config["packages"]) == sorted(
        [*setuptools.find_packages(str(ROOT / "src")), "syncgrade.course"])
    assert config["package-dir"] == {"": "src", "syncgrade.course": "exercises"}
    assert config["package-data"]["syncgrade.course"] == [
        "course.toml", "*/exercise.py", "*/README.md", "*/stub.py"]


# ------------------------------------------------------------------ always the pristine stub


def _cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout's layout (src/, exercises/, solutions/, .gitignore) under git, and the
    environment an editable install gives (the package from the clone's src/)."""
    clone = tmp_path / "clone"
    for name in ("src", "exercises", "solutions"):
        learner = ("submission.py",) if name == "exercises" else ()  # a learner's own
        shutil.copytree(ROOT / name, clone / name, ignore=shutil.ignore_patterns(
            "__pycache__", "*.egg-info", *learner))
    shutil.copy(ROOT / ".gitignore", clone / ".gitignore")
    env = {**os.environ, "PYTHONPATH": str(clone / "src")}  # what `pip install -e .` does
    env.pop("SYNCGRADE_COURSE", None)
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=clone, check=True, timeout=60,
                       capture_output=True)
    return clone, env


def test_a_learner_in_the_clone_never_edits_the_stub(tmp_path: Path) -> None:
    """The README's quick start: a clone with an editable install, `grade start` in its
    root. The built-in course *is* the clone's exercises/, so `grade start` writes only
    submission.py beside the statement, and git ignores it. After editing the started
    file, --force gives the pristine stub back, and a start in a second folder gives the
    pristine stub too."""
    clone, env = _clone(tmp_path)
    where = subprocess.run([sys.executable, "-c", "import syncgrade; print(syncgrade.__file__)"],
                           cwd=clone, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.strip().startswith(str(clone)), where.stdout + where.stderr
    folder = clone / "exercises" / "exercise-1"
    stub, statement = folder / "stub.py", folder / "README.md"
    pristine, read_me = stub.read_bytes(), statement.read_bytes()

    done = _cli("start", "exercise-1", cwd=clone, env=env)
    assert done.stdout.splitlines()[0] == "wrote exercises/exercise-1/submission.py"
    assert "Read exercises/exercise-1/README.md, edit exercises/exercise-1/submission.py" \
        in done.stdout and "README.md" not in done.stdout.splitlines()[0]
    started = folder / "submission.py"
    assert started.read_bytes() == pristine and statement.read_bytes() == read_me
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=clone,
                            capture_output=True, text=True, check=True, timeout=60).stdout
    changed = [line for line in status.splitlines() if not line.startswith("A ")]
    assert not [line for line in changed if line.startswith("??")], status  # all ignored
    # Bytecode of the course's declarations is ignored everywhere; whether it is written
    # depends on the environment (PYTHONDONTWRITEBYTECODE), not on `grade start`.
    assert [line for line in changed
            if "exercises/" in line and not line.endswith("/__pycache__/")] == [
        "!! exercises/exercise-1/submission.py"], status
    assert subprocess.run(["git", "check-ignore", "-q", "exercises/exercise-1/submission.py"],
                          cwd=clone, timeout=30).returncode == 0
    solution = (SOLUTIONS / "exercise-1" / "solution.py").read_bytes()
    started.write_bytes(solution)  # the learner's work
    _cli("start", "exercise-1", "--force", cwd=clone, env=env)
    assert started.read_bytes() == pristine
    assert stub.read_bytes() == pristine and statement.read_bytes() == read_me

    started.write_bytes(solution)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _cli("start", "exercise-1", cwd=elsewhere, env=env)
    assert (elsewhere / "exercises" / "exercise-1" / "submission.py").read_bytes() == pristine
    assert stub.read_bytes() == pristine


def test_a_learners_submission_is_no_course_content(tmp_path: Path) -> None:
    """A submission.py beside the statement (a checkout) is never read as the course's:
    the course opens the same, its corpus and what a bundle ships leave it out."""
    from syncgrade.courses import open_course
    from syncgrade.platforms.bundle import shipped_course_files

    course = tmp_path / "exercises"
    shutil.copytree(COURSE, course, ignore=shutil.ignore_patterns("__pycache__",
                                                                  "submission.py"))
    before = open_course(course)
    corpus = {kind: before.folder("exercise-1").corpus_files(kind)
              for kind in ("correct", "flawed")}
    shipped = shipped_course_files(course, "exercise-1")
    (course / "exercise-1" / "submission.py").write_text("raise SystemExit('mine')\n")
    after = open_course(course, reload=True)
    assert list(after.exercises) == list(before.exercises) and after.errors == {}
    assert {kind: after.folder("exercise-1").corpus_files(kind) for kind in corpus} == corpus
    assert shipped_course_files(course, "exercise-1") == shipped
    assert not [p for p in shipped if p.name == "submission.py"]


def test_the_clones_learner_files_are_ignored_by_git() -> None:
    """Where `grade start` writes in a checkout is the learner's, never a tracked file."""
    tracked = subprocess.run(["git", "ls-files", "exercises"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked and not [n for n in tracked if n.endswith("/submission.py")]
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


def test_start_never_writes_into_another_courses_exercise_folder(tmp_path: Path) -> None:
    """In a checkout with another course chosen ($SYNCGRADE_COURSE, --course), the
    checkout's exercises/exercise-1/ is the built-in course's folder, not the learner's:
    nothing is written there (its README.md would be replaced)."""
    checkout = tmp_path / "checkout"
    builtin = _small_course(checkout)  # holds exercise-1/exercise.py, like exercises/
    builtin.rename(checkout / "exercises")
    other = _small_course(tmp_path / "other")
    statement = (checkout / "exercises" / "exercise-1" / "README.md").read_bytes()
    (other / "exercise-1" / "README.md").write_text("# another statement\n")
    with pytest.raises(StarterError, match="inside the course folder"):
        start("exercise-1", checkout, course=other, force=True)
    assert (checkout / "exercises" / "exercise-1" / "README.md").read_bytes() == statement
    assert not (checkout / "exercises" / "exercise-1" / "submission.py").exists()
    # The course's own folder (the checkout's layout): only submission.py, beside it.
    assert start("exercise-1", checkout, course=checkout / "exercises") == [
        checkout / "exercises" / "exercise-1" / "submission.py"]
