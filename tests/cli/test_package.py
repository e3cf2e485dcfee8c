"""`grade package`'s validation (a `grade new` scaffold and an invalid exercise are refused
with one line naming the file and line, exit 1, nothing written), its usage errors, and
`grade package course`, the learner's course wheel. No test here grades a file: the
graded half of validation is `grade validate`'s own (tests/authoring), and here its
outcome is stood in for."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from corpus_support import copy_whole_course

from syncgrade import cli
from syncgrade.authoring import validate as validate_module
from syncgrade.authoring.validate import Outcome, Row

EXERCISE = "exercise-2"


def tiny_wheel(where: Path) -> Path:
    wheel = where / "syncgrade-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("syncgrade/__init__.py", "")
        archive.writestr("syncgrade-0.1.0.dist-info/RECORD", "syncgrade/__init__.py,,\n")
    return wheel


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in course as a course folder of its own, answers and all."""
    folder = tmp_path_factory.mktemp("course") / "jax-bench"
    return copy_whole_course(folder)  # each solution.py beside its exercise


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_scaffold_is_refused_naming_its_first_todo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scaffold = tmp_path / "new-course"
    assert cli.main(["new", "exercise-12", "--title", "Draft", "--course", str(scaffold)]) == 0
    capsys.readouterr()
    target = tmp_path / "autograder.zip"
    code = cli.main(["package", "gradescope", "exercise-12", "--course", str(scaffold),
                     "-o", str(target), "--wheel", str(tiny_wheel(tmp_path))])
    err = _one_line(capsys)
    assert code == cli.EXIT_NOT_FULL and not target.exists()
    where = re.search(r"first at (exercise-12/[\w.]+):(\d+)", err)
    assert where is not None, err
    line = (scaffold / where[1]).read_text().splitlines()[int(where[2]) - 1]
    assert "TODO" in line  # the file and line it names do hold a placeholder
    assert "grade new" in err and f"--course {scaffold}" in err
    assert cli.main(["package", "course", "--course", str(scaffold), "-o",
                     str(tmp_path / "dist")]) == cli.EXIT_NOT_FULL
    assert "first at exercise-12/" in _one_line(capsys)
    assert not (tmp_path / "dist").exists()


def test_an_invalid_exercise_is_refused_before_grading(
        tmp_path: Path, course: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(course, broken)
    (broken / EXERCISE / "mutants.toml").unlink()
    code = cli.main(["package", "all", EXERCISE, "--course", str(broken), "-o",
                     str(tmp_path / "out"), "--wheel", str(tiny_wheel(tmp_path))])
    err = _one_line(capsys)
    assert code == cli.EXIT_NOT_FULL and not (tmp_path / "out").exists()
    assert f"{EXERCISE} is not valid" in err and f"{EXERCISE}/mutants.toml" in err
    assert f"grade validate {EXERCISE} --course {broken}" in err


def _outcome(*rows: Row) -> Outcome:
    return Outcome(list(rows), [EXERCISE], grades=7, seconds=1.0)


def test_the_graded_validation_decides(tmp_path: Path, course: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[list[str], int, int]] = []
    verdict = [Row(EXERCISE, "mutant no_wait", "fails: sync-before-stop", "full marks", False)]

    def fake(ids: list[str], _course: object, *, runs: int, jobs: int,
             **_: object) -> Outcome:
        calls.append((list(ids), runs, jobs))
        return _outcome(Row(EXERCISE, "solution", "full marks", "full marks", True), *verdict)

    monkeypatch.setattr(validate_module, "validate", fake)
    args = ["package", "gradescope", EXERCISE, "--course", str(course), "--runs", "2",
            "--wheel", str(tiny_wheel(tmp_path)), "-o", str(tmp_path / "a.zip")]
    assert cli.main(args) == cli.EXIT_NOT_FULL
    err = _one_line(capsys)
    assert "mutant no_wait: expected fails: sync-before-stop; got full marks" in err
    assert calls == [([EXERCISE], 2, 2)] and not (tmp_path / "a.zip").exists()
    verdict.clear()
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert f"validated {EXERCISE}: VALID, 1 items, 7 grades" in out and "wrote" in out
    assert (tmp_path / "a.zip").is_file()


@pytest.mark.parametrize(("args", "says"), [
    (["package", "gradescope"], "name the exercise to package"),
    (["package", "course", "exercise-1", "--course", "COURSE"], "give no EXERCISE"),
    (["package", "course"], "built-in course already ships"),
    (["package", "course", "--course", "COURSE", "--name", "bad name!"], "--name"),
    (["package", "course", "--course", "COURSE", "--course-version", "one"],
     "--course-version"),
    (["package", "prairielearn", "exercise-99"], "unknown exercise"),
])
def test_package_usage_errors_are_one_line(
        args: list[str], says: str, course: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main([a.replace("COURSE", str(course)) for a in args] + ["--no-validate"])
    assert code == cli.EXIT_USAGE and says in _one_line(capsys)


def _record_ok(wheel: zipfile.ZipFile) -> bool:
    """Every RECORD line's hash and size match its file (pip checks them on install)."""
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    for line in wheel.read(record).decode().splitlines():
        name, digest, size = line.split(",")
        if name == record:
            continue
        data = wheel.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        if digest != f"sha256={expected.decode()}" or int(size) != len(data):
            return False
    return True


def test_the_learner_course_wheel(tmp_path: Path, course: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    builds = []
    for n in (1, 2):
        out = tmp_path / f"dist-{n}"
        assert cli.main(["package", "course", "--course", str(course), "-o", str(out),
                         "--course-version", "1.2"]) == 0
        [wheel] = out.iterdir()
        builds.append(wheel)
    assert "grade --course jax-bench list" in capsys.readouterr().out
    assert builds[0].name == "syncgrade_course_jax_bench-1.2-py3-none-any.whl"
    assert builds[0].read_bytes() == builds[1].read_bytes()  # reproducible
    with zipfile.ZipFile(builds[0]) as archive:
        names = archive.namelist()
        assert _record_ok(archive)
        entry_points = archive.read("syncgrade_course_jax_bench-1.2.dist-info/"
                                  "entry_points.txt").decode()
    assert entry_points == ("[syncgrade.courses]\n"
                            "jax-bench = syncgrade_course_jax_bench:course_dir\n")
    shipped = sorted(n.split("/course/", 1)[1] for n in names if "/course/" in n)
    exercises = sorted(p.name for p in course.iterdir() if p.is_dir())
    assert shipped == sorted(["course.toml", *(f"{e}/{f}" for e in exercises
                                               for f in ("README.md", "exercise.py",
                                                         "stub.py"))])
    assert not [n for n in names if n.endswith(("solution.py", "mutants.toml"))
                or "corpus" in n.split("/")]
    site = tmp_path / "site"  # unpacked as pip installs a pure wheel: the course is found
    with zipfile.ZipFile(builds[0]) as archive:
        archive.extractall(site)
    found = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
         "from syncgrade.courses import open_course; c = open_course('jax-bench'); "
         "print(c.root, sorted(c.exercises))", str(site)],
        capture_output=True, text=True, timeout=300)
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith(str(site / "syncgrade_course_jax_bench" / "course"))
    assert str(sorted(exercises)) in found.stdout
