"""Done when (issue 18, "A course is a folder"): an instructor who has only the installed
wheel makes a course in an empty folder outside the repository with `grade new`, fills it,
validates it, grades a file against it and serves it over HTTP, without forking syncgrade
and without touching the repository.

The wheel (built once per run, :func:`conftest.built_wheel`) is installed with
``--no-deps --no-index`` into a fresh venv. Its dependencies are the ones this suite runs
on, hard-linked into the new venv's site-packages (copied where links are not possible):
offline, a second or two, and real files under the venv's prefix, which matters because
the grading child's jail shows the interpreter's prefixes and nothing else (a ``.pth``
pointing at the project's venv, or ``--system-site-packages``, would leave jax outside
the jail, or let the project itself in). The checkout's own package and its editable
install are never copied, and the test checks that ``syncgrade`` is imported from the
new venv.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from venv_support import venv_without_syncgrade

from syncgrade.courses import builtin_course

pytestmark = pytest.mark.wheel  # runs in CI (not `slow`)

ROOT = Path(__file__).resolve().parents[2]
@pytest.fixture(scope="module")
def venv(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; returns its ``bin`` folder."""
    root = tmp_path_factory.mktemp("instructor") / "venv"
    python = venv_without_syncgrade(root)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "-q", str(built_wheel)], check=True,
                   capture_output=True, timeout=300)
    where = subprocess.run([str(python), "-c", "import sys, syncgrade; "
                            "print(syncgrade.__file__); print(*sys.path, sep='\\n')"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    assert Path(where[0]).is_relative_to(root), where[0]  # the wheel's copy, not the repo's
    assert not any(p and Path(p).is_relative_to(ROOT) for p in where[1:]), where
    return root / "bin"


def _git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout


DECLARATION = '''\
"""exercise-1: time each call until its output is ready."""

import numpy as np

from syncgrade.rubric import CheckSpec, Exercise, GraderCall, Required, tolerance
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s


def make_inputs():
    rng = np.random.default_rng(7_700_417)
    return {"x": rng.normal(size=(704, 448)).astype(np.float32),
            "w": rng.normal(size=(448, 320)).astype(np.float32)}


def make_references(inputs):
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


EXERCISE = Exercise(
    id="exercise-1",
    title="Time a call until it is done",
    version="1",
    required=(Required("timed_samples", "fn, args, repeats", positional=3),),
    calls=(
        GraderCall("main", "timed_samples", (
            s.workload("predict", warm=[s.device("x"), s.device("w")]),
            s.tuple_of(s.device("x"), s.device("w")), s.value(4))),
        GraderCall("probe", "timed_samples", (
            s.probe(0.1), s.probe_args(0.1), s.value(2))),
    ),
    checks=(
        CheckSpec("sync-before-stop", "Waits before stopping", c.sync_before_stop, 2,
                  {"call": "main", "samples": (1,)}),
        CheckSpec("covers-device-work", "Covers the device work", c.covers_device_work, 2,
                  {"call": "probe", "samples": (1,)}),
    ),
    make_inputs=make_inputs,
    make_references=make_references,
)
'''

TIMER = '''\
import time

import jax
import jax.numpy as jnp
import numpy as np


def timed_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
{wait}        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples


if __name__ == "__main__":
    x = jnp.ones((64, 32))
    w = jnp.ones((32, 16))
    print(timed_samples(jax.jit(lambda x, w: jnp.tanh(x @ w)), (x, w), 3)[1])
'''
WAIT = "        out.block_until_ready()\n"
FILL = {
    "exercise.py": DECLARATION,
    "README.md": "# Exercise 1: Time a call until it is done\n\nWrite `timed_samples(fn, "
                 "args, repeats)`: time each call until its output is ready.\n",
    "stub.py": "# TODO: the timer stops as soon as the call returns.\n"
               + TIMER.format(wait=""),
    "solution.py": TIMER.format(wait=WAIT),
    "mutants.toml": '[[mutant]]\nname = "no_wait"\nflaw = "no wait before the timer stops"\n'
                    'expect-fail = ["sync-before-stop", "covers-device-work"]\n\n'
                    '  [[mutant.edit]]\n  old = """\n' + WAIT + '"""\n  new = ""\n',
    "corpus/correct/waits.py": "# style: waits on each output\n# expect: pass\n"
                               + TIMER.format(wait="        jax.block_until_ready(out)\n"),
    "corpus/flawed/no_wait.py": "# flaw: the timer stops at dispatch\n"
                                "# expect-fail: sync-before-stop covers-device-work\n"
                                + TIMER.format(wait=""),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, method: str, path: str,
             body: dict[str, str] | None = None) -> tuple[int, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, data, {"Content-Type": "application/json"} if data else {})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_a_wheel_install_grades_and_starts_the_builtin_course(venv: Path,
                                                              tmp_path: Path) -> None:
    """The wheel's built-in course (syncgrade/course/, mapped from exercises/): listed,
    started and graded (the shipped solution, from the checkout's solutions/, gets full
    marks), though none of its solutions ship."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SYNCGRADE_", "PYTHON", "VIRTUAL_ENV"))}
    env["NO_COLOR"] = "1"

    def grade(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "grade"), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)

    covered = subprocess.run([str(venv / "python"), "-c", (
        "from syncgrade import courses, pool; course = courses.builtin_course(); "
        "assert course.root.parts[-2:] == ('syncgrade', 'course'), course.root; "
        "assert pool.covers(pool.child_command(), course.hidden_paths), course.hidden_paths")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert covered.returncode == 0, covered.stderr  # pre-started children serve its grades
    listed = grade("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [e["id"] for e in json.loads(listed.stdout)["exercises"]] == list(
        builtin_course().exercises)  # the checkout's, every one of them
    started = grade("start", "exercise-1")
    assert started.returncode == 0, started.stderr
    assert sorted(p.name for p in (tmp_path / "exercises" / "exercise-1").iterdir()) == [
        "README.md", "submission.py"]
    solution = ROOT / "solutions" / "exercise-1" / "solution.py"
    graded = grade("exercise-1", str(solution), "--json")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    report = json.loads(graded.stdout)
    assert report["status"] == "passed" and report["score"] == report["max_score"] > 0


def test_an_instructor_builds_validates_grades_and_serves_a_course_outside(
        venv: Path, tmp_path: Path) -> None:
    before = _git_status()
    workdir = tmp_path / "teaching"  # an empty folder outside the repository
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SYNCGRADE_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(NO_COLOR="1", PATH=f"{venv}{os.pathsep}{env.get('PATH', '')}")

    def grade(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "grade"), *args], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=600)

    made = grade("new", "exercise-1", "--title", "Time a call", "--course", "course")
    assert made.returncode == 0, made.stderr
    folder = workdir / "course" / "exercise-1"
    assert (workdir / "course" / "course.toml").is_file() and (folder / "exercise.py").is_file()
    for name in ("corpus/correct/waits_each_call.py", "corpus/flawed/no_wait.py"):
        (folder / name).unlink()  # the scaffold's examples, replaced below
    for name, text in FILL.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)

    checked = grade("validate", "--course", "course", "--all", "--runs", "1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "VALID  1 exercise(s)" in checked.stdout
    for item in ("solution", "stub", "mutant no_wait", "corpus correct/waits",
                 "corpus flawed/no_wait"):
        assert f" {item} " in checked.stdout, item

    graded = grade("exercise-1", "course/exercise-1/corpus/flawed/no_wait.py",
                   "--course", "course", "--json")
    assert graded.returncode == 1, graded.stderr
    report = json.loads(graded.stdout)
    assert report["title"] == "Time a call until it is done"
    assert {c["id"] for c in report["checks"] if c["status"] == "failed"} == {
        "sync-before-stop", "covers-device-work"}

    port = _free_port()
    server = subprocess.Popen([str(venv / "grade"), "serve", "--course", "course", "--port",
                               str(port), "--workers", "1"], cwd=workdir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, "grade serve exited"
            try:
                status, health = _request(port, "GET", "/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline, "grade serve did not come up"
                time.sleep(0.2)
        assert status == 200 and health["course"] == "course"  # type: ignore[index]
        status, catalogue = _request(port, "GET", "/v1/exercises")
        assert [e["id"] for e in catalogue["exercises"]] == ["exercise-1"]  # type: ignore[index]
        status, served = _request(port, "POST", "/v1/grade", {
            "exercise": "exercise-1", "source": FILL["solution.py"]})
        assert status == 200, served
        assert served["status"] == "passed", served  # type: ignore[index]
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert _git_status() == before  # nothing under the repository was touched
