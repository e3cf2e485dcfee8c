"""The Gradescope bundle run as Gradescope runs it by default: as root *without*
``CAP_SYS_ADMIN`` (Docker's default capabilities), so no namespace jail can be built.

``setpriv --bounding-set -sys_admin --inh-caps -sys_admin`` drops the capability from the
real entry point (``run_autograder`` -> ``syncgrade-gradescope``), which is installed
from the bundle's own wheel into a venv made from the system's Python (reachable by an
unprivileged uid, as ``/autograder/venv`` is on Gradescope). The submission is the
reference solution plus a probe that tries to read every file that holds answers (the
course's solutions, mutants, declarations and corpus, the installed package's course,
the bundle in ``source/``) and writes what it could read where the test finds it.
The same probe, graded with full namespace isolation (this machine's own capabilities),
is `test_the_probe_reads_nothing_with_full_isolation` (docs/security.md, "Modes").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_support import copy_whole_course
from platform_support import check_gradescope
from venv_support import venv_without_syncgrade

from syncgrade import cli, sandbox
from syncgrade.cli.package import build_wheel
from syncgrade.platforms.entry import MISCONFIGURED

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ["package", "gradescope", "--no-validate"]  # validation: tests/cli/test_package.py
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
SETPRIV = shutil.which("setpriv")
NO_SYS_ADMIN = [str(SETPRIV), "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"]

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and os.geteuid() == 0 and SETPRIV
         and os.path.exists(SYSTEM_PYTHON)),
    reason="needs Linux, root, setpriv (util-linux) and a system Python of this version")

PROBE = '''
import glob as _glob, json as _json, os as _os
_read, _refused = [], []
for _pattern in {patterns!r}:
    for _path in sorted(_glob.glob(_pattern, recursive=True)) or [_pattern]:
        try:
            with open(_path, "rb") as _f:
                _f.read(1)
            _read.append(_path)
        except OSError as _e:
            _refused.append([_path, type(_e).__name__])
print("probe read:", _read)
try:  # the test reads this; in the jail its folder does not exist (a private /tmp)
    with open({out!r} + "/probe-" + str(_os.getpid()) + ".json", "w") as _f:
        _json.dump({{"uid": _os.getuid(), "read": _read, "refused": _refused}}, _f)
except OSError:
    if [_p for _p in _read if _p != {control!r}]:
        raise SystemExit("the probe read " + repr(_read))  # fails the grade instead
'''


CONTROL = "/etc/os-release"  # readable to anyone: the probe's reads do work


def answer_files(root: Path, venv: Path) -> list[str]:
    """What learner code must never read in the container: the course folder the bundle
    grades (here a whole course deployed with it: solutions, mutants, corpus), the
    bundle itself (``source/``: its configuration and wheel) and the installed
    package's course and rubric."""
    site = next(venv.glob("lib/python3*/site-packages"))
    return [f"{root}/source/course/exercise-1/solution.py",
            f"{root}/source/course/exercise-1/mutants.toml",
            f"{root}/source/course/exercise-1/exercise.py",
            f"{root}/source/course/exercise-1/corpus/*/*.py",
            f"{root}/source/course/exercise-2/solution.py",
            f"{root}/source/syncgrade.json",
            f"{root}/source/wheels/*.whl",
            f"{site}/syncgrade/course/exercise-1/exercise.py",
            f"{site}/syncgrade/rubric/*.py"]


@pytest.fixture(scope="module")
def container() -> Iterator[dict[str, Any]]:
    """A simulated ``/autograder`` (in a folder other uids can traverse, which pytest's
    tmp_path is not): the bundle unpacked in ``source/`` with a whole course folder
    beside it, set up by its own setup.sh into a venv of the system's Python."""
    where = Path(tempfile.mkdtemp(prefix="syncgrade-container-"))
    where.chmod(0o755)
    try:
        wheel = build_wheel(Path(tempfile.mkdtemp(dir=where)))
        course = where / "course"
        copy_whole_course(course)  # solutions, mutants, corpus: all in the course folder
        target = where / "autograder.zip"
        assert cli.main([*PACKAGE, "exercise-1", "--course", str(course),
                         "--wheel", str(wheel), "-o", str(target), "--timeout", "60"]) == 0
        root = where / "autograder"
        with zipfile.ZipFile(target) as archive:
            archive.extractall(root / "source")
        # The bundle ships only what grading needs; a course deployed whole beside it (an
        # older bundle, a course folder baked into the image) must be as unreadable.
        shutil.rmtree(root / "source" / "course")
        shutil.copytree(course, root / "source" / "course")
        for script in ("setup.sh", "run_autograder"):
            (root / "source" / script).chmod(0o755)
        shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
        probes = where / "probes"
        probes.mkdir(mode=0o777)
        probes.chmod(0o777)
        venv = root / "venv"
        venv_without_syncgrade(venv, base=SYSTEM_PYTHON)
        env = {**os.environ, "SYNCGRADE_AUTOGRADER_ROOT": str(root),
               "SYNCGRADE_VENV": str(venv),
               "SYNCGRADE_PIP": f"{sys.executable} -m pip --python {venv / 'bin' / 'python'}",
               "SYNCGRADE_PIP_ARGS": "--no-deps --no-index -q"}
        for name in ("SYNCGRADE_EXERCISE", "SYNCGRADE_COURSE", "SYNCGRADE_WARM_POOL",
                     "SYNCGRADE_ALLOW_UNPROTECTED"):  # the refusal is tested here
            env.pop(name, None)
        setup = subprocess.run([str(root / "source" / "setup.sh")], env=env,
                               capture_output=True, text=True, timeout=300)
        assert setup.returncode == 0, setup.stderr
        assert "the course's hidden files stay protected" in setup.stdout, setup.stdout
        (root / "submission").mkdir()
        probe = PROBE.format(patterns=[CONTROL, *answer_files(root, venv)], out=str(probes),
                             control=CONTROL)
        (root / "submission" / "submission.py").write_text(SOLUTION.read_text() + probe)
        yield {"root": root, "venv": venv, "env": env, "probes": probes}
    finally:
        shutil.rmtree(where, ignore_errors=True)


def run_without_sys_admin(container: dict[str, Any], **env: str
                          ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], list[Any]]:
    """``run_autograder`` without CAP_SYS_ADMIN (``env``: more variables): the process,
    the results file and what each run of the submission's probe reported."""
    for old in container["probes"].iterdir():
        old.unlink()
    root = container["root"]
    run = subprocess.run([*NO_SYS_ADMIN, str(root / "run_autograder")],
                         env={**container["env"], **env}, capture_output=True, text=True,
                         timeout=600, cwd=root)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    probes = [json.loads(p.read_text()) for p in sorted(container["probes"].iterdir())]
    return run, results, probes


def test_the_capability_is_really_gone() -> None:
    """The premise: under this setpriv no namespace can be made (the sandbox falls back to
    its basic mode), while this test process itself can."""
    check = subprocess.run([*NO_SYS_ADMIN, sys.executable, "-c",
                            "from syncgrade import sandbox; print(sandbox.namespaces_available())"],
                           capture_output=True, text=True, timeout=60, check=True)
    assert check.stdout.strip() == "False"
    assert sandbox.namespaces_available()


def test_learner_code_reads_no_answer_without_cap_sys_admin(container: dict[str, Any]) -> None:
    run, results, probes = run_without_sys_admin(container)
    check_gradescope(results)
    assert results["extra_data"]["syncgrade"]["status"] == "passed", run.stdout[-3000:]
    assert probes, "the probe never ran: " + run.stdout[-3000:]
    for probe in probes:  # every run of the learner's code (import, calls)
        assert probe["uid"] != 0  # an unprivileged uid, not root
        assert probe["read"] == [CONTROL]
        refused = {path for path, _ in probe["refused"]}
        assert any(p.endswith("exercise-1/solution.py") for p in refused)
        assert any("/corpus/" in p for p in refused)  # the glob was refused, not empty
    assert "WARNING" not in run.stderr  # isolated by permissions: nothing to warn about
    locked = container["root"] / "source"
    assert locked.stat().st_mode & 0o777 == 0o700 and locked.stat().st_uid == 0


def test_nothing_is_graded_when_nothing_can_be_hidden(container: dict[str, Any]) -> None:
    """An interpreter no other uid can reach (here: the venv made root-only) would leave
    the child running as root, so nothing could be hidden: the entry point refuses before
    any learner code runs (the probe never ran), the learner reads "not set up
    correctly" and the staff log says why in one line. With the operator's opt-in it
    grades, as root, and stderr warns (docs/security.md, "Fail closed")."""
    venv = container["venv"]
    venv.chmod(0o700)
    try:
        run, results, probes = run_without_sys_admin(container)
        check_gradescope(results)
        assert results["output"] == MISCONFIGURED and probes == []
        refusal = [line for line in run.stdout.splitlines() if "refused to grade" in line]
        assert len(refusal) == 1 and "would run as ROOT" in refusal[0], run.stdout[-3000:]
        assert str(venv) in refusal[0]  # what the uid could not reach
        run, results, probes = run_without_sys_admin(container,
                                                     SYNCGRADE_ALLOW_UNPROTECTED="1")
    finally:
        venv.chmod(0o755)
    check_gradescope(results)
    assert results["extra_data"]["syncgrade"]["status"] == "passed"
    assert "WARNING: learner code could read the course's hidden files" in run.stderr
    assert "child runs as ROOT" in run.stderr
    assert probes and all(p["uid"] == 0 and len(p["read"]) > 5 for p in probes)  # the doc


def test_the_check_names_a_hidden_path_an_unprivileged_uid_can_read(
        container: dict[str, Any]) -> None:
    """From an interpreter other uids reach, without the jail: a hidden folder of mode
    0755 is named (the entry point would refuse), one of mode 0700 owned by root is not."""
    where = container["root"].parent
    shut, open_ = where / "shut", where / "open"
    for folder, mode in ((shut, 0o700), (open_, 0o755)):
        folder.mkdir(exist_ok=True)
        folder.chmod(mode)
    check = ("import sys; from syncgrade import sandbox; "
             "print(sandbox.unprotected_reason(sys.executable, sys.argv[1:], jail=False))")
    python = str(container["venv"] / "bin" / "python")

    def reason(*hidden: Path) -> str:
        return subprocess.run([python, "-c", check, *map(str, hidden)], capture_output=True,
                              text=True, timeout=120, check=True, cwd=where).stdout.strip()

    assert reason(shut) == "None"
    assert reason(shut, open_) == (f"an unprivileged uid can read {open_} (make them mode "
                                   "0700, owned by root)")


def test_the_probe_reads_nothing_with_full_isolation(container: dict[str, Any]) -> None:
    """The same container with this machine's capabilities: the namespace jail. The probe
    cannot report through its folder there (the jail's /tmp is private), so a read of any
    answer fails the grade instead."""
    root = container["root"]
    run = subprocess.run([str(root / "run_autograder")], env=container["env"],
                         capture_output=True, text=True, timeout=600, cwd=root)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope(results)
    assert results["extra_data"]["syncgrade"]["status"] == "passed", run.stdout[-3000:]
    assert "WARNING" not in run.stderr


def grade_cli(container: dict[str, Any], grade: Path) -> tuple[dict[str, Any], list[Any]]:
    """``grade exercise-1 --course COPY --json`` without CAP_SYS_ADMIN, on the solution
    plus the probe aimed at a world-readable copy of the course (the CLI changes no
    permissions): the report and what each probe read."""
    where = container["root"].parent
    course = where / "cli-course"
    if not course.exists():
        copy_whole_course(course)
    for old in container["probes"].iterdir():
        old.unlink()
    submission = where / "cli-submission.py"
    targets = [f"{course}/exercise-1/solution.py", f"{course}/exercise-1/mutants.toml"]
    submission.write_text(SOLUTION.read_text() + PROBE.format(
        patterns=[CONTROL, *targets], out=str(container["probes"]), control=CONTROL))
    env = {k: v for k, v in container["env"].items() if not k.startswith("SYNCGRADE_")}
    run = subprocess.run([*NO_SYS_ADMIN, str(grade), "exercise-1", str(submission),
                          "--course", str(course), "--json"],
                         env=env, capture_output=True, text=True, timeout=600, cwd=where)
    assert run.stdout, run.stderr[-3000:]
    probes = [json.loads(p.read_text()) for p in sorted(container["probes"].iterdir())]
    return json.loads(run.stdout), probes


def protections(report: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: p for p in report["grading"]["protections"]}


def test_the_cli_without_cap_sys_admin_reads_a_world_readable_course(
        container: dict[str, Any]) -> None:
    """Row "grade (CLI)", root without CAP_SYS_ADMIN, an interpreter other uids reach:
    an unprivileged uid, which reads what is world-readable (the course copy); the
    report says hidden-paths was not applied."""
    report, probes = grade_cli(container, container["venv"] / "bin" / "grade")
    assert report["status"] == "passed"
    found = protections(report)
    assert found["drop-privileges"]["applied"] and not found["hidden-paths"]["applied"]
    assert "can read" in found["hidden-paths"]["detail"]
    assert probes and all(p["uid"] != 0 and len(p["read"]) == 3 for p in probes)


def test_the_cli_without_cap_sys_admin_from_a_root_only_python_runs_as_root(
        container: dict[str, Any]) -> None:
    """The same row with this machine's own Python (under /root, mode 0700): the child
    stays root and reads everything; the report says so."""
    report, probes = grade_cli(container, Path(sys.executable).parent / "grade")
    found = protections(report)
    assert not found["drop-privileges"]["applied"] and not found["hidden-paths"]["applied"]
    assert "ROOT" in found["hidden-paths"]["detail"]
    assert probes and all(p["uid"] == 0 and len(p["read"]) == 3 for p in probes)
