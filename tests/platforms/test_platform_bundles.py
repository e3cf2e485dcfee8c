"""`grade package prairielearn|exercism|all`: each bundle's file list (the exercise's
statement, stub and declaration; never a solution, mutants, corpus or another exercise),
byte-reproducible builds, and each platform's entry point grading the packaged stub from
the bundle's own files on a simulated root (two grades in all)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from platform_support import check_exercism, check_prairielearn

from syncgrade import cli
from syncgrade.courses import open_course
from syncgrade.platforms.bundle import RUN_SH, leaks

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "exercise-2"
QUESTION = f"questions/syncgrade-{EXERCISE}/"
PRACTICE = f"exercises/practice/{EXERCISE}/"


def small_wheel(where: Path) -> Path:
    """A wheel shaped like syncgrade's, with the built-in course's answers in it."""
    wheel = where / "syncgrade-0.1.0-py3-none-any.whl"
    names = ["syncgrade/__init__.py", "syncgrade/course/course.toml",
             *(f"syncgrade/course/exercise-{n}/{f}" for n in (1, 2)
               for f in ("exercise.py", "README.md", "stub.py", "solution.py",
                         "mutants.toml", "corpus/correct/a.py")),
             "syncgrade-0.1.0.dist-info/METADATA"]
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in names:
            archive.writestr(name, f"# {name}\n")
        archive.writestr("syncgrade-0.1.0.dist-info/RECORD",
                         "".join(f"{n},sha256=x,1\n" for n in names))
    return wheel


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A whole course folder (solutions, mutants, corpus: everything that must not ship),
    packaged for every platform twice, the second time with every file touched anew:
    (course folder, first output folder, second output folder)."""
    tmp = tmp_path_factory.mktemp("bundles")
    course = tmp / "my-course"
    shutil.copytree(open_course().root, course,
                    ignore=shutil.ignore_patterns("__pycache__"))
    wheel = small_wheel(tmp)
    outs = []
    for n, when in enumerate((1_000_000_000, 1_700_000_000)):
        for path in [wheel, *course.rglob("*")]:
            os.utime(path, (when, when))
        out = tmp / f"out-{n}"
        assert cli.main(["package", "all", EXERCISE, "--no-validate", "--course", str(course),
                         "--wheel", str(wheel), "-o", str(out), "--timeout", "30"]) == 0
        outs.append(out)
    return course, outs[0], outs[1]


def _names(bundle: Path) -> list[str]:
    with zipfile.ZipFile(bundle) as archive:
        return archive.namelist()


def _extract(bundle: Path, where: Path) -> Path:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(where)
    for script in where.rglob("*.sh"):
        script.chmod(0o755)
    return where


def _answers(names: list[str]) -> list[str]:
    """Names that would give answers or another exercise away (read independently of
    the bundle module's own check, :func:`leaks`)."""
    return [n for n in names if n.endswith(("solution.py", "mutants.toml"))
            or "corpus" in n.split("/") or ("exercise-" in n and EXERCISE not in n)]


def test_each_bundle_holds_the_exercise_and_no_answers(
        built: tuple[Path, Path, Path]) -> None:
    _, out, _ = built
    assert sorted(p.name for p in out.iterdir()) == ["autograder.zip", "exercism.zip",
                                                      "prairielearn.zip"]
    pl, ex = _names(out / "prairielearn.zip"), _names(out / "exercism.zip")
    assert sorted(pl) == sorted([
        "README.md", "grader-image/Dockerfile",
        "grader-image/wheels/syncgrade-0.1.0-py3-none-any.whl",
        QUESTION + "info.json", QUESTION + "question.html", QUESTION + "stub.py",
        QUESTION + "clientFilesQuestion/README.md", QUESTION + "tests/syncgrade.json",
        "serverFilesCourse/syncgrade/course/course.toml",
        *(f"serverFilesCourse/syncgrade/course/{EXERCISE}/{f}"
          for f in ("README.md", "exercise.py", "stub.py"))])
    assert sorted(ex) == sorted([
        "README.md", "test-runner/Dockerfile", "test-runner/bin/run.sh",
        "test-runner/wheels/syncgrade-0.1.0-py3-none-any.whl",
        "test-runner/course/course.toml",
        *(f"test-runner/course/{EXERCISE}/{f}" for f in ("README.md", "exercise.py",
                                                          "stub.py")),
        PRACTICE + ".docs/instructions.md", PRACTICE + ".meta/config.json",
        PRACTICE + "submission.py"])
    for bundle in ("autograder.zip", "prairielearn.zip", "exercism.zip"):
        names = _names(out / bundle)
        assert _answers(names) == [] and leaks(names) == []
        with zipfile.ZipFile(out / bundle) as archive:
            wheel = zipfile.ZipFile(archive.open(next(n for n in names if n.endswith(".whl"))))
            inside = wheel.namelist()
        assert _answers(inside) == [] and f"syncgrade/course/{EXERCISE}/stub.py" in inside
    assert leaks(["a/exercise-1/solution.py", "x/corpus/flawed/a.py", "m/mutants.toml",
                  "ok/stub.py"]) == ["a/exercise-1/solution.py", "x/corpus/flawed/a.py",
                                     "m/mutants.toml"]  # the self-check does catch them


def test_the_bundles_are_byte_reproducible(built: tuple[Path, Path, Path]) -> None:
    _, first, second = built
    for bundle in ("autograder.zip", "prairielearn.zip", "exercism.zip"):
        assert (first / bundle).read_bytes() == (second / bundle).read_bytes(), bundle


def test_the_bundled_run_sh_is_the_repositorys() -> None:
    assert (ROOT / "bin" / "run.sh").read_text() == RUN_SH


def test_prairielearn_grades_the_packaged_stub_from_the_bundle(
        built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    course, out, _ = built
    bundle = _extract(out / "prairielearn.zip", tmp_path / "bundle")
    info = json.loads((bundle / QUESTION / "info.json").read_text())
    options = info["externalGradingOptions"]
    assert info["gradingMethod"] == "External" and options["serverFilesCourse"] == [
        "syncgrade/"]
    assert options["timeout"] == 30 + 20 + 10  # timeout + overhead + the container's
    grade = tmp_path / "grade"  # what PrairieLearn mounts: the question's tests/ and
    shutil.copytree(bundle / QUESTION / "tests", grade / "tests")  # serverFilesCourse/
    shutil.copytree(bundle / "serverFilesCourse", grade / "serverFilesCourse")
    (grade / "student").mkdir()
    shutil.copy(bundle / QUESTION / "stub.py", grade / "student" / "submission.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCGRADE_")}
    result = subprocess.run([sys.executable, "-m", "syncgrade.platforms.entry",
                             "prairielearn", *options["entrypoint"].split()[1:],
                             "--root", str(grade)], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    results = json.loads((grade / "results" / "results.json").read_text())
    check_prairielearn(results)
    assert results["gradable"] is True and 0 <= results["score"] < 1
    assert results["tests"][0]["name"].startswith("runs") and (
        results["tests"][0]["points"] == results["tests"][0]["max_points"])
    assert f"{EXERCISE} submission.py: failed (graded)" in result.stdout
    assert str(course) not in result.stdout + result.stderr  # graded from the bundle


def test_exercism_runs_the_packaged_exercise_from_the_bundle(
        built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, out, _ = built
    bundle = _extract(out / "exercism.zip", tmp_path / "bundle")
    dockerfile = (bundle / "test-runner" / "Dockerfile").read_text()
    assert "ENV SYNCGRADE_COURSE=/opt/test-runner/course" in dockerfile
    assert "COPY course/ /opt/test-runner/course/" in dockerfile
    meta = json.loads((bundle / PRACTICE / ".meta" / "config.json").read_text())
    assert meta["files"]["solution"] == ["submission.py"] and meta["files"]["example"] == []
    # Exercism's own limits (8 + 9 s) are wall time, too tight on a loaded test machine:
    # the track's .meta/syncgrade.json may widen them (not the course: INPUT_DIR's own).
    (bundle / PRACTICE / ".meta" / "syncgrade.json").write_text(
        json.dumps({"timeout": 60, "overhead": 120}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCGRADE_")}
    env.update(SYNCGRADE_PYTHON=sys.executable,  # as the image sets them
               SYNCGRADE_COURSE=str(bundle / "test-runner" / "course"))
    result = subprocess.run([str(bundle / "test-runner" / "bin" / "run.sh"), EXERCISE,
                             f"{bundle / PRACTICE}/", f"{tmp_path / 'out'}/"], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    check_exercism(results)
    assert results["status"] == "fail" and results["tests"][0]["status"] == "pass"
    assert f"{EXERCISE} submission.py: failed (graded)" in result.stdout
