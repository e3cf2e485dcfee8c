"""The warm grader daemon (issue 27): `grade` through it gives the cold path's report; a
daemon that no longer matches (another setting, changed sources or course files) exits
and the grade goes cold; a broken or absent daemon means a cold grade, never a traceback.

Grades: 3 through a daemon (the solution, a flawed file, its text view) and 2 cold (the
same files), plus 7 of a file with a syntax error (no jax needed in the child). Two
daemons serve, and a third only waits out its idle time, each in a folder of its own
(``SYNCGRADE_DAEMON_DIR``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from process_support import LoadBudget

from syncgrade import daemon
from syncgrade.courses import BUILTIN_ROOT, open_course

SYNTAX_ERROR = "def synchronized_samples(fn, args, repeats:\n    pass\n"


def grade(env: dict[str, str], *args: str, timeout: float = 300,
          cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "SYNCGRADE_DAEMON_DIR": str(tmp / "daemon"),
            "XDG_STATE_HOME": str(tmp / "state")}


def _socket(env: dict[str, str]) -> Path:
    """The socket of the daemon that ``grade`` run with ``env`` uses (this Python and
    checkout, ``env``'s course setting)."""
    client = {**daemon.identity(), "course_env": env.get("SYNCGRADE_COURSE", "").strip()}
    return (Path(env["SYNCGRADE_DAEMON_DIR"])
            / f"{daemon.SOCKET_PREFIX}{daemon.installation_key(client)}.sock")


def _ping(env: dict[str, str]) -> dict[str, Any] | None:
    done = grade(env, "daemon", "status")
    if done.returncode != 0:
        return None
    return {"text": done.stdout, "grades": int(done.stdout.split(": ")[1].split()[0])}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A daemon started as `grade watch` starts it, in a folder of its own."""
    env = _env(tmp_path_factory.mktemp("daemon"))
    started = grade(env, "daemon", "start", timeout=LoadBudget().limit(300))
    assert started.returncode == 0, started.stderr
    yield env
    grade(env, "daemon", "stop")


def _verdicts(report: dict[str, Any]) -> tuple[object, ...]:
    return (report["status"], report["cause"], report["score"], report["max_score"],
            report["submission"], [(c["id"], c["status"], c["points"], c["message"] != "")
                                   for c in report["checks"]])


def test_a_grade_through_the_daemon_is_the_cold_grade(running: dict[str, str]) -> None:
    folder = Path(running["SYNCGRADE_DAEMON_DIR"])
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(_socket(running).stat().st_mode) == 0o600
    files = open_course(None).folder("exercise-1")
    (flawed,) = [p for p in files.corpus_files("flawed") if p.name == "no_wait.py"]
    before = _ping(running)
    assert before is not None
    for path, code in ((files.solution, 0), (flawed, 1)):
        warm = grade(running, "exercise-1", str(path), "--json")
        cold = grade({**running, "SYNCGRADE_DAEMON": "0"}, "exercise-1", str(path), "--json")
        assert (warm.returncode, cold.returncode) == (code, code), warm.stderr + cold.stderr
        assert _verdicts(json.loads(warm.stdout)) == _verdicts(json.loads(cold.stdout))
        assert warm.stderr == cold.stderr == ""
    after = _ping(running)
    assert after is not None and after["grades"] == before["grades"] + 2  # both warm ones
    with pytest.MonkeyPatch.context() as patch:  # this process asks the same daemon
        patch.setenv(daemon.DIR_ENV, running[daemon.DIR_ENV])
        last = daemon.call({"op": "ping"}, 30)["last_grade_s"]
    assert isinstance(last, float) and last > 0  # the last grade's own wall seconds
    text = grade(running, "exercise-1", str(flawed))  # the text view, rendered by it
    assert text.returncode == 1 and "✗ sync-before-stop" in text.stdout
    assert "What your timer measured" in text.stdout and "\x1b[" not in text.stdout


def _words(text: str) -> str:
    """``text`` with its lines joined, as wrapped words read."""
    return " ".join(text.split())


def _copy_course(tmp_path: Path) -> Path:
    """exercise-1 alone, as a course of its own named as the README's (its solution
    beside it)."""
    course = tmp_path / "exercises"
    shutil.copytree(BUILTIN_ROOT / "exercise-1", course / "exercise-1",
                    ignore=shutil.ignore_patterns("__pycache__", "submission.py"))
    shutil.copy(open_course(None).folder("exercise-1").solution,
                course / "exercise-1" / "solution.py")
    return course


def test_the_daemon_stays_warm_across_saves_and_installations_until_the_course_changes(
        tmp_path: Path) -> None:
    """The README's loop: the learner's submission.py saved inside the exercise folder,
    again and again, is graded warm; another installation or course setting gets a
    daemon of its own and leaves this one running; a change of a course file stops it."""
    course = _copy_course(tmp_path)
    env = {**_env(tmp_path), "SYNCGRADE_COURSE": str(course)}
    budget = LoadBudget()
    assert grade(env, "daemon", "start", timeout=budget.limit(300)).returncode == 0
    sock = _socket(env)
    assert sock.exists()
    mine = course / "exercise-1" / "submission.py"
    for save in range(3):  # a real file, saved in place, then replaced as editors do
        if save == 2:
            (course / "exercise-1" / "submission.py~").write_text(SYNTAX_ERROR)
            os.replace(course / "exercise-1" / "submission.py~", mine)
        else:
            mine.write_text(SYNTAX_ERROR + "#" * save)
        done = grade(env, cwd=course / "exercise-1")  # bare `grade` in the folder
        assert done.returncode == 1 and "line 1" in done.stdout, done.stdout + done.stderr
        assert "by the warm grader)" in _words(done.stdout), done.stdout  # no "+ start-up"
        status = _ping(env)
        assert status is not None and status["grades"] == save + 1, status
    # Another course setting (the same course, named by another path) is another daemon's.
    other = {**env, "SYNCGRADE_COURSE": str(course / ".." / "exercises")}
    assert _socket(other) != sock
    done = grade(other, "exercise-1", str(mine))
    assert done.returncode == 1 and "+ start-up)" in _words(done.stdout)  # cold: none there
    assert sock.exists() and (_ping(env) or {}).get("grades") == 3  # this one: untouched
    declaration = course / "exercise-1" / "exercise.py"
    os.utime(declaration, ns=(0, declaration.stat().st_mtime_ns + 10**9))
    done = grade(env, "exercise-1", str(mine))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "line 1" in done.stdout and "NOT YET" in done.stdout  # the cold grade's report
    assert "+ start-up)" in _words(done.stdout)
    deadline = time.monotonic() + budget.limit(60)
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not sock.exists()  # it exited and removed its socket
    assert grade(env, "daemon", "status").returncode == 1


def test_an_idle_daemon_exits_and_removes_its_socket(tmp_path: Path) -> None:
    env = _env(tmp_path)
    done = grade(env, "daemon", "run", "--idle", "1", timeout=LoadBudget().limit(300))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "listening on" in done.stdout and "idle for 1 s" in done.stdout
    assert not _socket(env).exists()


def test_the_course_fingerprint_follows_what_the_daemon_holds(tmp_path: Path) -> None:
    """It changes with what a daemon keeps in memory (a declaration, ``course.toml``, the
    set of exercise folders) and with nothing a grade reads afresh or never reads (the
    stub, the statement, mutants, corpus) nor with a learner's files."""
    course = tmp_path / "course"
    shutil.copytree(BUILTIN_ROOT / "exercise-1", course / "exercise-1",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = daemon.course_fingerprint(course)
    assert daemon.course_fingerprint(course) == before
    declaration = course / "exercise-1" / "exercise.py"
    os.utime(declaration, ns=(0, declaration.stat().st_mtime_ns + 10**9))
    assert daemon.course_fingerprint(course) != before
    before = daemon.course_fingerprint(course)
    (course / "course.toml").write_text('title = "T"\n')
    assert daemon.course_fingerprint(course) != before
    before = daemon.course_fingerprint(course)
    (course / "exercise-2").mkdir()  # a new exercise: the course's list of them changed
    assert daemon.course_fingerprint(course) != before
    before = daemon.course_fingerprint(course)
    for name in ("submission.py", ".submission.py.swp", "notes.txt", "stub.py",
                 "README.md", "mutants.toml"):  # the learner's; read afresh or never
        (course / "exercise-1" / name).write_text("x = 2\n")
    (course / "exercise-1" / "corpus" / "correct" / "new.py").write_text("x = 1\n")
    assert daemon.course_fingerprint(course) == before
    assert daemon.tree_fingerprint() == daemon.tree_fingerprint()


def test_the_package_fingerprint_follows_its_python_sources(tmp_path: Path) -> None:
    """Any ``.py`` file of the package, at any depth, added, removed or edited, makes a
    daemon stale; its ``course`` folder (the built-in course: the course fingerprint's),
    ``__pycache__`` folders and other files do not."""
    package = tmp_path / "syncgrade"
    (package / "sub" / "deeper").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    module = package / "sub" / "deeper" / "mod.py"
    module.write_text("x = 1\n")
    before = daemon.tree_fingerprint(package)
    for ignored in (package / "course" / "exercise-1" / "exercise.py",
                    package / "sub" / "__pycache__" / "mod.py", package / "sub" / "notes.txt"):
        ignored.parent.mkdir(parents=True, exist_ok=True)
        ignored.write_text("y = 2\n")
    assert daemon.tree_fingerprint(package) == before
    module.write_text("x = 22\n")  # edited: another size
    assert daemon.tree_fingerprint(package) != before
    before = daemon.tree_fingerprint(package)
    os.utime(module, ns=(0, module.stat().st_mtime_ns + 10**9))  # touched
    assert daemon.tree_fingerprint(package) != before
    before = daemon.tree_fingerprint(package)
    (package / "sub" / "new.py").write_text("")
    assert daemon.tree_fingerprint(package) != before
    before = daemon.tree_fingerprint(package)
    module.unlink()
    assert daemon.tree_fingerprint(package) != before


class _Broken:
    """A 'daemon' on the socket that answers garbage, or nothing at all."""

    def __init__(self, folder: Path, answer: bytes) -> None:
        folder.mkdir(mode=0o700)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(_socket({"SYNCGRADE_DAEMON_DIR": str(folder)})))
        self.listener.listen(4)
        self.served = 0
        threading.Thread(target=self._serve, args=(answer,), daemon=True).start()

    def _serve(self, answer: bytes) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(1 << 20)
                connection.sendall(answer)
                self.served += 1


@pytest.mark.parametrize("answer", [b"not json at all", b""])
def test_a_broken_daemon_means_a_cold_grade(tmp_path: Path, answer: bytes) -> None:
    env = _env(tmp_path)
    fake = _Broken(Path(env["SYNCGRADE_DAEMON_DIR"]), answer)
    broken = tmp_path / "broken.py"
    broken.write_text(SYNTAX_ERROR)
    try:
        done = grade(env, "exercise-1", str(broken), "--json")
    finally:
        fake.listener.close()
    assert fake.served == 1  # it was asked, and its answer was not used
    assert done.returncode == 1 and done.stderr == ""
    assert json.loads(done.stdout)["cause"] == "syntax_error"


def test_no_daemon_a_dead_one_or_a_shared_folder_is_unavailable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "daemon"
    monkeypatch.setenv(daemon.DIR_ENV, str(folder))
    with pytest.raises(daemon.DaemonUnavailable, match="no daemon"):
        daemon.call({"op": "ping"}, timeout=5)
    folder.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(daemon.socket_path()))
    dead.close()  # the socket file of a daemon that died: connection refused
    with pytest.raises(daemon.DaemonUnavailable, match="ConnectionRefused"):
        daemon.call({"op": "ping"}, timeout=5)
    folder.chmod(0o755)  # others may enter: never trusted
    with pytest.raises(daemon.DaemonUnavailable, match="not private"):
        daemon.call({"op": "ping"}, timeout=5)
    monkeypatch.setenv(daemon.USE_ENV, "0")
    assert not daemon.enabled()
