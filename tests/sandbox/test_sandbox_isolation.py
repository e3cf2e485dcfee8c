"""What the child can and cannot reach, asserted consistently with ``protections``.

Each test runs in the best available mode ("auto": namespaces here when root) and in the
fallback ("basic"). Where a protection is applied the attack must fail; where it is not
applied the test checks that the outcome says so honestly (and cleans up after an attack
that succeeded).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType

import pytest
from sandbox_support import Runner, namespaces_possible

import syncgrade
from syncgrade.sandbox import Limits, SandboxError, run_sandboxed

EXPECTED_PROTECTIONS = {
    "process-group", "wall-limit", "cpu-limit", "address-space-limit", "file-size-limit",
    "scrubbed-env", "temp-workdir", "drop-privileges", "no-new-privileges", "pid-namespace",
    "filesystem-allowlist", "hidden-paths", "no-network", "leftover-sweep",
}


def _no_process_with_arg(marker: str) -> bool:
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        return False
            except OSError:
                continue
    return True


def test_every_protection_is_recorded_with_a_reason(run: Runner, isolation: str) -> None:
    out = run("pass")
    names = [p.name for p in out.protections]
    assert set(names) >= EXPECTED_PROTECTIONS and len(names) == len(set(names))
    assert all(p.detail for p in out.protections)
    for always in ("process-group", "wall-limit", "scrubbed-env", "temp-workdir"):
        assert out.applied(always)
    if isolation == "basic":
        assert out.isolation == "basic" and not out.applied("pid-namespace")


@pytest.mark.skipif(not namespaces_possible(), reason="namespace jail needs Linux as root")
def test_namespace_mode_applies_everything_as_root() -> None:
    out = run_sandboxed([sys.executable, "-c", "pass"], isolation="namespaces")
    assert out.isolation == "namespaces"
    missing = [p for p in out.protections if not p.applied]
    assert missing == [], missing


def test_setsid_grandchild_is_killed_and_run_returns_promptly(run: Runner) -> None:
    marker = f"{secrets.randbelow(10**6)}.25"
    start = time.monotonic()
    out = run(
        f"""
        import subprocess
        # Escapes the process group and session, and keeps our stdout open.
        subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
        print("parent done")
        """,
        limits=Limits(wall_s=10),
    )
    assert time.monotonic() - start < 5.0
    assert (out.termination, out.returncode) == ("exited", 0)
    assert out.stdout.text == "parent done\n"
    assert out.escaped_killed == 1
    assert _no_process_with_arg(marker)


def test_background_children_die_at_timeout_too(run_auto: Runner) -> None:
    marker = f"{secrets.randbelow(10**6)}.5"
    out = run_auto(
        f"""
        import subprocess, time
        for _ in range(3):
            subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
        time.sleep(60)
        """,
        limits=Limits(wall_s=2.5, stack_grace_s=0.2),  # time to start 3 sleepers
    )
    assert out.termination == "timeout"
    assert out.escaped_killed == 3
    assert _no_process_with_arg(marker)


@pytest.fixture
def sigterm_log() -> Iterator[list[int]]:
    """Catch SIGTERM in the grader (this test process) so an attack cannot kill pytest."""
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    yield received
    signal.signal(signal.SIGTERM, previous)


def test_child_cannot_signal_the_grader(run: Runner, sigterm_log: list[int]) -> None:
    out = run(
        f"""
        import json, os, signal
        result = {{}}
        for name, pid in (("parent", os.getppid()), ("grader", {os.getpid()})):
            try:
                os.kill(pid, signal.SIGTERM)
                result[name] = "sent"
            except OSError as e:
                result[name] = type(e).__name__
        print(json.dumps(result))
        """
    )
    time.sleep(0.1)  # let a signal that did get through be delivered
    result = json.loads(out.stdout.text)
    protected = out.applied("pid-namespace") or out.applied("drop-privileges")
    if protected:
        assert sigterm_log == []
        assert result["grader"] in ("ProcessLookupError", "PermissionError")
        assert result["parent"] in ("ProcessLookupError", "PermissionError")
    else:  # honest fallback: root without namespaces can signal anything
        assert not out.applied("drop-privileges")
        assert result["grader"] == "sent" and signal.SIGTERM in sigterm_log


def test_child_cannot_write_the_installed_package(run: Runner) -> None:
    # A file next to this module's package; equivalent to src/syncgrade/ itself.
    target = Path(syncgrade.__file__).parent / "sandbox" / f"_probe_{secrets.token_hex(4)}.txt"
    try:
        out = run(
            f"""
            try:
                with open({str(target)!r}, "w") as f:
                    f.write("pwned")
                print("written")
            except OSError as e:
                print(type(e).__name__, e.errno)
            """
        )
        protected = out.applied("filesystem-allowlist") or out.applied("drop-privileges")
        if protected:
            assert out.stdout.text.split()[0] in ("OSError", "PermissionError"), out.stdout.text
            assert not target.exists()
        else:
            assert out.stdout.text == "written\n" and target.exists()
    finally:
        target.unlink(missing_ok=True)


def test_hidden_paths_cannot_be_read(run: Runner, tmp_path: Path) -> None:
    shown = tmp_path / "course"  # exposed read-only, but with a hidden part inside
    (shown / "rubric").mkdir(parents=True)
    (shown / "rubric" / "answers.py").write_text("SECRET = 42\n")
    (shown / "public.txt").write_text("public\n")
    solutions = tmp_path / "solutions"  # hidden, and not exposed at all
    solutions.mkdir()
    (solutions / "ex1.py").write_text("SOLUTION\n")
    tmp_path.chmod(0o755)
    out = run(
        f"""
        import json
        result = {{}}
        for path in ({str(shown / "public.txt")!r}, {str(shown / "rubric" / "answers.py")!r},
                     {str(solutions / "ex1.py")!r}):
            try:
                result[path] = open(path).read()
            except OSError as e:
                result[path] = type(e).__name__
        print(json.dumps(result))
        """,
        readable_paths=[shown],
        hidden_paths=[shown / "rubric", solutions],
    )
    result = json.loads(out.stdout.text)
    secret = result[str(shown / "rubric" / "answers.py")]
    solution = result[str(solutions / "ex1.py")]
    if out.applied("hidden-paths"):
        assert result[str(shown / "public.txt")] == "public\n"
        assert secret in ("PermissionError", "FileNotFoundError")
        assert solution in ("PermissionError", "FileNotFoundError")
    else:
        assert secret == "SECRET = 42\n" and solution == "SOLUTION\n"


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener in the grader's network namespace; yields its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_no_network_to_the_graders_loopback(run: Runner, listener: int) -> None:
    out = run(
        f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {listener}), timeout=2).close()
            print("connected")
        except OSError as e:
            print(type(e).__name__)
        """
    )
    if out.applied("no-network"):
        assert out.stdout.text in ("ConnectionRefusedError\n", "OSError\n"), out.stdout.text
    else:
        assert out.stdout.text == "connected\n"


PEEK_AT_ENVIRONMENTS = """
import json, os
seen = []  # other processes whose environment holds the secret, via /proc
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if b"hunter2" in open(f"/proc/{pid}/environ", "rb").read():
            seen.append(pid)
    except OSError:
        pass
print(json.dumps({"env": dict(os.environ), "seen": seen}))
"""


def test_environment_is_scrubbed(run: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    # putenv does not change /proc/<pid>/environ, so a helper started with the secret
    # stands in for a grader whose environment holds it from the start.
    holder = subprocess.Popen(["sleep", "30"], env={"SECRET_TOKEN": "hunter2"})
    try:
        out = run(PEEK_AT_ENVIRONMENTS, env={"GRADER_SETTING": "1"})
    finally:
        holder.kill()
        holder.wait()
    result = json.loads(out.stdout.text)
    env = result["env"]
    assert "SECRET_TOKEN" not in env and "hunter2" not in json.dumps(env)
    if out.applied("pid-namespace") or out.applied("drop-privileges"):
        assert result["seen"] == []
    else:  # known limit: a root child outside a pid namespace reads any /proc/<pid>
        assert str(holder.pid) in result["seen"]
    assert env["GRADER_SETTING"] == "1"
    assert env["LANG"] == "C.UTF-8"
    assert env["TMPDIR"].startswith(env["HOME"])
    assert {"SYNCGRADE_CHANNEL_FD", "SYNCGRADE_STACK_FD"} <= set(env)


def test_workdir_is_removed_afterwards(run: Runner) -> None:
    out = run("import os; open('junk', 'w').write('x'); os.mkdir('d'); os.chmod('d', 0)\n"
              "print(os.getcwd())")
    assert not Path(out.stdout.text.strip()).exists()


def test_sandbox_faults_raise(isolation: str) -> None:
    with pytest.raises(SandboxError, match="no-such-program"):
        run_sandboxed(["no-such-program-xyz"], isolation=isolation)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        run_sandboxed([sys.executable], files={"../escape": b""})


def test_process_limit_stops_a_thread_bomb(run_auto: Runner) -> None:
    out = run_auto(
        """
        import threading, time
        started = 0
        try:
            for _ in range(300):  # bounded even where the limit is not applied
                threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
                started += 1
        except RuntimeError:
            pass
        print(started, flush=True)
        import os; os._exit(0)  # do not wait for the sleeping threads
        """,
        limits=Limits(wall_s=10, processes=40),
    )
    started = int(out.stdout.text)
    if out.applied("process-limit"):
        assert started < 40
    else:
        assert started == 300


def test_concurrent_runs_stay_separate() -> None:
    sources = {
        "plain": "print('plain')",
        "orphan": "import subprocess; subprocess.Popen(['sleep', '30'], start_new_session=True)"
                  "; print('orphan')",
        "slow": "import time; print('slow', flush=True); time.sleep(30)",
        "crash": "import ctypes; print('crash', flush=True); ctypes.string_at(0)",
    }

    def one(name: str) -> tuple[str, str, str]:
        out = run_sandboxed([sys.executable, "-c", sources[name]],
                            limits=Limits(wall_s=4, stack_grace_s=0.1))
        return name, out.stdout.text, out.termination

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = sorted(pool.map(one, sources))
    assert time.monotonic() - start < 10
    assert results == [("crash", "crash\n", "signal"), ("orphan", "orphan\n", "exited"),
                       ("plain", "plain\n", "exited"), ("slow", "slow\n", "timeout")]


GRADER = """
import sys
from syncgrade.sandbox import Limits, run_sandboxed
child = "import subprocess, time; subprocess.Popen(['sleep', sys.argv[1] + '1'], " \\
        "start_new_session=True); time.sleep(60)"
run_sandboxed([sys.executable, "-c", "import sys; " + child, sys.argv[1]],
              isolation=sys.argv[2], limits=Limits(wall_s=60))
"""


def _wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _kill_by_arg(marker: str) -> None:
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        os.kill(int(name), signal.SIGKILL)
            except OSError:
                continue


def test_children_die_with_a_crashed_grader(isolation: str, tmp_path: Path) -> None:
    marker = f"{secrets.randbelow(10**6)}.7"
    # A killed grader cannot delete its run directory: keep it inside tmp_path.
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    grader = subprocess.Popen([sys.executable, "-c", GRADER, marker, isolation], env=env)
    try:
        assert _wait_for(lambda: not _no_process_with_arg(marker + "1"), 10)
        grader.kill()
        grader.wait()
        # The main child always dies with the grader (parent-death signal) ...
        assert _wait_for(lambda: _no_process_with_arg("import sys; import subprocess"), 5)
        if isolation == "auto" and namespaces_possible():
            # ... and in namespace mode so does everything it left behind.
            assert _wait_for(lambda: _no_process_with_arg(marker + "1"), 5)
    finally:
        grader.kill()
        _kill_by_arg(marker)  # basic mode: a setsid escapee outlives a dead grader


SYSTEM_PYTHON = "/usr/bin/python3"
UNPRIVILEGED_GRADER = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from syncgrade.sandbox import run_sandboxed
child = '''
import json, os
r = {"uid": os.getuid()}
try:
    os.kill(int(os.environ["GRADER"]), 15); r["kill"] = "sent"
except OSError as e:
    r["kill"] = type(e).__name__
try:
    open(os.environ["GRADER_FILE"], "w").write("x"); r["write"] = "ok"
except OSError as e:
    r["write"] = type(e).__name__
print(json.dumps(r))
'''
out = run_sandboxed([sys.executable, "-c", child], readable_paths=[sys.argv[2]],
                    env={"GRADER": str(os.getpid()),
                         "GRADER_FILE": os.path.join(sys.argv[2], "f")})
print(json.dumps({"child": json.loads(out.stdout.text), "isolation": out.isolation,
                  "applied": {p.name: p.applied for p in out.protections}}))
"""


@pytest.mark.skipif(not (namespaces_possible() and shutil.which("setpriv")
                         and os.path.exists(SYSTEM_PYTHON)),
                    reason="needs root, setpriv and a system python to act as 'nobody'")
def test_unprivileged_grader_gets_a_user_namespace_jail() -> None:
    # The grader's own files: a directory owned by the (unprivileged) grader user, in a
    # place that user can reach (pytest's tmp_path is under a root-only directory).
    owned = Path(tempfile.mkdtemp(prefix="syncgrade-test-"))
    os.chmod(owned, 0o755)
    os.chown(owned, 65534, 65534)
    src = str(Path(syncgrade.__file__).parents[1])
    try:
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON,
             "-c", UNPRIVILEGED_GRADER, src, str(owned)],
            capture_output=True, text=True, timeout=30, check=False)
        written = (owned / "f").exists()
    finally:
        shutil.rmtree(owned)
    if done.returncode != 0:
        pytest.fail(f"unprivileged grader failed: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    if not report["applied"]["user-namespace"]:
        pytest.skip("unprivileged user namespaces are disabled on this kernel")
    assert report["isolation"] == "namespaces"
    assert not report["applied"]["drop-privileges"]  # same uid, honestly reported
    assert report["child"]["kill"] == "ProcessLookupError"  # grader invisible
    assert report["child"]["write"] in ("OSError", "PermissionError")  # read-only jail
    assert not written


def test_cleanup_never_touches_the_temp_base(run: Runner, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "base"
    base.mkdir(mode=0o755)
    base.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    # Where it can, the child deletes its own run directory (the workdir's parent) and
    # leaves an unwritable directory behind: cleanup must cope without chmod-ing ``base``.
    run("import os, shutil\nos.mkdir('locked'); os.chmod('locked', 0)\n"
        "shutil.rmtree(os.path.dirname(os.getcwd()), ignore_errors=True)")
    assert base.stat().st_mode & 0o7777 == 0o1777
    assert list(base.iterdir()) == []
