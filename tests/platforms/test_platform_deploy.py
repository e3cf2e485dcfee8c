"""The deployable bundles, run end to end on simulated roots: `grade package gradescope`'s
zip (its setup.sh installs the wheel it carries into a fresh venv, its run_autograder grades
a submission), Exercism's `bin/run.sh SLUG INPUT_DIR OUTPUT_DIR`, and the PrairieLearn
question template under deploy/prairielearn/ on a simulated `/grade`."""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from corpus_support import copy_whole_course
from platform_support import check_exercism, check_gradescope, check_prairielearn
from process_support import LoadBudget
from venv_support import venv_without_syncgrade

from syncgrade import cli
from syncgrade.cli.package import RUN_AUTOGRADER, SETUP_SH
from syncgrade.courses import get_exercise

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ["package", "gradescope", "--no-validate"]  # validation: tests/cli/test_package.py
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"
TEMPLATE = ROOT / "deploy" / "prairielearn" / "questions" / "syncgrade-exercise-1"
RUN_SH = ROOT / "bin" / "run.sh"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`grade package gradescope exercise-1`, letting the command build the wheel itself."""
    target = tmp_path_factory.mktemp("package") / "autograder.zip"
    assert cli.main([*PACKAGE, "exercise-1", "-o", str(target),
                     "--timeout", "30", "--html"]) == 0
    return target


def test_the_zip_has_what_gradescope_requires(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as archive:
        infos = {i.filename: i for i in archive.infolist()}
        config = json.loads(archive.read("syncgrade.json"))
        wheel = archive.read(next(n for n in infos if n.startswith("wheels/")))
    names = sorted(infos)
    assert names[:3] == ["run_autograder", "setup.sh", "syncgrade.json"]
    assert [n for n in names if n.startswith("wheels/")] == [
        f"wheels/{n.split('/')[-1]}" for n in names if n.endswith(".whl")]
    for script in ("setup.sh", "run_autograder"):  # executable, at the zip's root
        assert stat.S_IMODE(infos[script].external_attr >> 16) == 0o755
    # The overhead bounds the whole run with the timeout (issue 26): 30 + 20 s.
    assert config == {"exercise": "exercise-1", "timeout": 30.0, "overhead": 20.0,
                      "memory_gib": 4.0, "html": True}
    assert wheel[:2] == b"PK"  # a wheel is a zip
    for text in (SETUP_SH, RUN_AUTOGRADER):
        result = subprocess.run(["bash", "-n"], input=text, text=True, capture_output=True)
        assert result.returncode == 0, result.stderr


def test_setup_and_run_autograder_on_a_simulated_root(bundle: Path, tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:  # Gradescope unpacks the zip into source/
        archive.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        (root / "source" / script).chmod(0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    shutil.copy(NO_WAIT, root / "submission" / "submission.py")
    venv = tmp_path / "venv"
    venv_without_syncgrade(venv)
    env = {**os.environ, "SYNCGRADE_AUTOGRADER_ROOT": str(root), "SYNCGRADE_VENV": str(venv),
           "SYNCGRADE_PIP": f"{sys.executable} -m pip --python {venv / 'bin' / 'python'}",
           "SYNCGRADE_PIP_ARGS": "--no-deps --no-index -q"}
    env.pop("SYNCGRADE_EXERCISE", None)
    setup = subprocess.run([str(root / "source" / "setup.sh")], env=env, capture_output=True,
                           text=True, timeout=300)
    assert setup.returncode == 0, setup.stderr
    assert "syncgrade 0.1.0 installed" in setup.stdout
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import syncgrade; print(syncgrade.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(venv) and not Path(where).is_relative_to(ROOT)
    run = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope(results)
    assert 0 < results["score"] < get_exercise("exercise-1").max_score
    assert results["output_format"] == "html"  # the bundle's "html": true
    sync = next(t for t in results["tests"] if t["name"].startswith("sync-before-stop"))
    assert "<svg" in sync["output"] and "perf_counter" in sync["output"]
    assert "exercise-1 submission.py: failed (graded)" in run.stdout  # the staff log


def test_setup_makes_its_own_venv_when_there_is_none(bundle: Path) -> None:
    """The path Gradescope takes: no venv yet, so setup.sh makes one (with pip) and
    installs the wheel into it (here without its dependencies: no network in tests). As
    root it makes the venv from a Python an unprivileged uid can start: the one
    SYNCGRADE_PYTHON names sits in a root-only folder, so it is skipped, and the script
    says which it took and that learner code will be kept from the answers."""
    where = Path(tempfile.mkdtemp(prefix="syncgrade-setup-"))  # others may traverse it
    try:
        where.chmod(0o755)
        root = where / "autograder"
        with zipfile.ZipFile(bundle) as archive:
            archive.extractall(root / "source")
        (root / "source" / "setup.sh").chmod(0o755)
        private = where / "private"
        private.mkdir(mode=0o700)
        hidden_python = private / "python3"
        hidden_python.symlink_to(os.path.realpath(sys.executable))
        env = {**os.environ, "SYNCGRADE_AUTOGRADER_ROOT": str(root),
               "SYNCGRADE_PYTHON": str(hidden_python),
               "SYNCGRADE_PIP_ARGS": "--no-deps --no-index -q"}
        env.pop("SYNCGRADE_VENV", None)
        env.pop("SYNCGRADE_PIP", None)
        setup = subprocess.run([str(root / "source" / "setup.sh")], env=env,
                               capture_output=True, text=True, timeout=300)
        assert setup.returncode == 0, setup.stderr
        assert "syncgrade 0.1.0 installed" in setup.stdout
        assert (root / "venv" / "bin" / "syncgrade-gradescope").is_file()
        made = next(line for line in setup.stdout.splitlines() if "making" in line)
        if os.geteuid() == 0:  # only root drops to another uid, so only root must choose
            assert f"skipped {hidden_python}" in setup.stderr
            assert str(hidden_python) not in made
            assert "the course's hidden files stay protected" in setup.stdout, setup.stdout
    finally:
        shutil.rmtree(where, ignore_errors=True)


def test_run_autograder_without_setup_still_writes_results(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    root.mkdir()
    script = root / "run_autograder"
    script.write_text(RUN_AUTOGRADER)
    script.chmod(0o755)
    env = {**os.environ, "SYNCGRADE_AUTOGRADER_ROOT": str(root),
           "SYNCGRADE_VENV": str(tmp_path / "no-venv")}
    run = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "did setup.sh fail?" in run.stdout
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope(results)
    assert results["score"] == 0 and "not your fault" in results["output"]


def fake_wheel(where: Path) -> Path:
    """A small wheel shaped like syncgrade's: a module, the built-in course's files for
    three exercises (including what must never ship), a RECORD naming them all."""
    wheel = where / "syncgrade-0.1.0-py3-none-any.whl"
    names = ["syncgrade/__init__.py", "syncgrade/course/course.toml",
             *(f"syncgrade/course/exercise-{n}/{f}" for n in (1, 2, 3)
               for f in ("exercise.py", "README.md", "stub.py", "solution.py")),
             "syncgrade-0.1.0.dist-info/METADATA"]
    record = "".join(f"{n},sha256=x,1\n" for n in names)
    record += "syncgrade-0.1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in names:
            archive.writestr(name, f"# {name}\n")
        archive.writestr("syncgrade-0.1.0.dist-info/RECORD", record)
    return wheel


def _wheel_in(bundle: Path) -> zipfile.ZipFile:
    with zipfile.ZipFile(bundle) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".whl"))
        return zipfile.ZipFile(io.BytesIO(archive.read(name)))


def test_package_ships_only_its_exercise_of_a_course_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    course = tmp_path / "my-course"  # a whole course: solutions, mutants, corpus
    copy_whole_course(course)
    (course / "exercise-2" / "__pycache__").mkdir()
    (course / "exercise-2" / "__pycache__" / "exercise.cpython-311.pyc").write_bytes(b"x")
    target = tmp_path / "out" / "autograder.zip"
    assert cli.main([*PACKAGE, "exercise-2", "--course", str(course),
                     "--wheel", str(fake_wheel(tmp_path)), "-o", str(target)]) == 0
    assert "wrote" in capsys.readouterr().out
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        config = json.loads(archive.read("syncgrade.json"))
    assert config["course"] == "course" and config["exercise"] == "exercise-2"
    assert sorted(n for n in names if n.startswith("course/")) == [
        "course/course.toml", "course/exercise-2/README.md", "course/exercise-2/exercise.py",
        "course/exercise-2/stub.py"]
    wheel = _wheel_in(target)
    assert sorted(n for n in wheel.namelist() if "/course/" in n) == [
        "syncgrade/course/course.toml", "syncgrade/course/exercise-2/README.md",
        "syncgrade/course/exercise-2/exercise.py", "syncgrade/course/exercise-2/stub.py"]
    record = wheel.read("syncgrade-0.1.0.dist-info/RECORD").decode()
    assert sorted(line.split(",")[0] for line in record.splitlines()) == sorted(
        wheel.namelist())  # RECORD names exactly what is left


def test_the_built_wheel_keeps_only_the_graded_exercise(bundle: Path) -> None:
    wheel = _wheel_in(bundle)  # `grade package gradescope exercise-1`, the real wheel
    course = sorted(n for n in wheel.namelist() if n.startswith("syncgrade/course/"))
    assert course == ["syncgrade/course/course.toml", "syncgrade/course/exercise-1/README.md",
                      "syncgrade/course/exercise-1/exercise.py",
                      "syncgrade/course/exercise-1/stub.py"]
    assert not any(n.endswith(("solution.py", "mutants.toml")) or "corpus" in n
                   for n in wheel.namelist())


def test_the_zip_is_reproducible(tmp_path: Path) -> None:
    """Same wheel, course and options: byte-identical zips, whenever the files were last
    touched and wherever the zip is written."""
    course = tmp_path / "my-course"
    copy_whole_course(course, "corpus")
    wheel = fake_wheel(tmp_path)
    zips = []
    for n, when in enumerate((1_000_000_000, 1_700_000_000)):
        for path in [wheel, *course.rglob("*")]:
            os.utime(path, (when, when))
        target = tmp_path / f"out-{n}" / "autograder.zip"
        assert cli.main([*PACKAGE, "exercise-3", "--course", str(course),
                         "--wheel", str(wheel), "-o", str(target), "--html"]) == 0
        zips.append(target.read_bytes())
    assert zips[0] == zips[1]
    other = tmp_path / "other.zip"
    assert cli.main([*PACKAGE, "exercise-2", "--course", str(course),
                     "--wheel", str(wheel), "-o", str(other), "--html"]) == 0
    assert other.read_bytes() != zips[0]  # a different input does change it


@pytest.mark.parametrize(("args", "says"), [
    (["exercise-99"], "unknown exercise"),
    (["exercise-1", "--wheel", "/nonexistent.whl"], "not a wheel file"),
    (["exercise-1", "--wheel", "TMP/syncgrade-0.1.0-py3-none-any.whl"], "not a wheel file"),
])
def test_package_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           args: list[str], says: str) -> None:
    (tmp_path / "syncgrade-0.1.0-py3-none-any.whl").write_bytes(b"PK")  # not a zip
    args = [a.replace("TMP", str(tmp_path)) for a in args]
    code = cli.main([*PACKAGE, *args, "-o", str(tmp_path / "a.zip")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE and says in err and len(err.splitlines()) == 1


def _run_sh(slug: str, solution: Path, out: Path,
            python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SYNCGRADE_PYTHON": python}
    env.pop("SYNCGRADE_EXERCISE", None)
    return subprocess.run([str(RUN_SH), slug, f"{solution}/", f"{out}/"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_exercism_run_sh_grades_into_output_dir(tmp_path: Path) -> None:
    solution = tmp_path / "solution"
    (solution / ".meta").mkdir(parents=True)
    shutil.copy(NO_WAIT, solution / "timer.py")
    (solution / "helper.py").write_text("x = 1\n")
    (solution / ".meta" / "config.json").write_text(json.dumps(
        {"files": {"solution": ["timer.py"], "test": ["timer_test.py"]}}))
    # Exercism's own limits (8 s for the learner, 9 s for the grader's start-up and
    # rendering) are idle-machine figures: on a loaded machine the child's jax import
    # alone can take longer, which is a grader fault, not this test's subject (the
    # deadline tests own the limits). Scaled by the load measured now, through the
    # configuration file the runner reads (.meta/syncgrade.json).
    budget = LoadBudget()
    (solution / ".meta" / "syncgrade.json").write_text(json.dumps(
        {"timeout": budget.limit(8.0), "overhead": budget.limit(9.0)}))
    result = _run_sh("exercise-1", solution, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    check_exercism(results)
    assert results["status"] == "fail" and results["version"] == 3
    sync = next(t for t in results["tests"] if t["name"].startswith("sync-before-stop"))
    assert sync["status"] == "fail" and "timer.py" in sync["message"]
    assert sync["test_code"].startswith("# syncgrade check sync-before-stop")
    assert not (solution / "results.json").exists()  # the input folder is read-only


def test_exercism_unknown_slug_and_a_missing_python_still_give_results(tmp_path: Path) -> None:
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "submission.py").write_text("x = 1\n")
    result = _run_sh("two-fer", solution, tmp_path / "a")
    assert result.returncode == 0
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    check_exercism(results)
    assert results["status"] == "error" and "not set up correctly" in results["message"]
    assert "unknown exercise" in result.stdout  # the reason, for the track's maintainers
    broken = _run_sh("exercise-1", solution, tmp_path / "b", python="/nonexistent/python")
    assert broken.returncode == 0
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    check_exercism(results)
    assert results["status"] == "error" and "not your fault" in results["message"]


def test_exercism_run_sh_needs_its_three_arguments() -> None:
    result = subprocess.run([str(RUN_SH), "exercise-1"], capture_output=True, text=True)
    assert result.returncode == 2 and "usage: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR" in (
        result.stderr)


def _info() -> dict[str, Any]:
    info: dict[str, Any] = json.loads((TEMPLATE / "info.json").read_text())
    return info


def test_the_prairielearn_template_states_its_external_grading() -> None:
    options = _info()["externalGradingOptions"]
    assert _info()["gradingMethod"] == "External"
    assert set(options) >= {"enabled", "image", "entrypoint", "serverFilesCourse", "timeout"}
    assert options["enabled"] is True
    config = json.loads((TEMPLATE / "tests" / "syncgrade.json").read_text())
    # PrairieLearn kills the job at its timeout (at most 600 s): above syncgrade's own.
    assert config["timeout"] + 20 <= options["timeout"] <= 600
    for folder in options["serverFilesCourse"]:
        assert (ROOT / "deploy" / "prairielearn" / "serverFilesCourse" / folder).is_dir()
    program = shlex.split(options["entrypoint"])[0]
    assert program == "/opt/syncgrade/bin/syncgrade-prairielearn"
    assert 'syncgrade-prairielearn = "syncgrade.platforms.entry:prairielearn_main"' in (
        (ROOT / "pyproject.toml").read_text())
    assert 'file-name="submission.py"' in (TEMPLATE / "question.html").read_text()


def test_the_prairielearn_template_grades_on_a_simulated_grade_root(tmp_path: Path) -> None:
    grade = tmp_path / "grade"
    shutil.copytree(TEMPLATE / "tests", grade / "tests")  # as PrairieLearn mounts them
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps(
        {"params": {}, "correct_answers": {}, "submitted_answers": {}}))
    (grade / "student").mkdir()
    shutil.copy(NO_WAIT, grade / "student" / "submission.py")
    arguments = shlex.split(_info()["externalGradingOptions"]["entrypoint"])[1:]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCGRADE_EXERCISE")}
    result = subprocess.run([sys.executable, "-m", "syncgrade.platforms.entry",
                             "prairielearn", *arguments, "--root", str(grade)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    results = json.loads((grade / "results" / "results.json").read_text())
    check_prairielearn(results)
    assert results["gradable"] is True and 0 < results["score"] < 1
    with_images = [t["name"].split(":")[0] for t in results["tests"] if "images" in t]
    assert with_images and with_images[0] == "sync-before-stop"


def test_the_dockerfile_recipe_has_the_service_and_worker_images() -> None:
    """What the image must be, read from the recipe: not a build (building needs a Docker
    daemon and a base image, which CI does not have; the image was built by hand where
    a daemon ran, and docs/platforms.md shows the commands)."""
    text = (ROOT / "Dockerfile").read_text()
    assert 'syncgrade[serve,cluster] @ file://' in text
    assert "\nUSER syncgrade\n" in text and "useradd" in text
    assert 'CMD ["grade", "serve", "--host", "0.0.0.0", "--port", "8000"]' in text
    health = next(line for line in text.splitlines() if "urlopen(" in line)
    assert "/readyz" in health and "/healthz" not in health  # readiness, not liveness
    assert "FROM runtime AS exercism" in text and "COPY bin/run.sh" in text
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignored[2] == "*" and "!src/" in ignored and "!pyproject.toml" in ignored
    assert "COPY exercises ./exercises" in text  # the built-in course (package-dir)
    shipped = [line for line in ignored if line.startswith("!exercises/")]
    assert shipped == ["!exercises/course.toml", "!exercises/*/exercise.py",
                       "!exercises/*/README.md", "!exercises/*/stub.py"]
    assert not [line for line in ignored if "solution" in line and line.startswith("!")]
    assert "FROM ${SYNCGRADE_IMAGE}" in (ROOT / "deploy" / "prairielearn" /
                                         "Dockerfile").read_text()
