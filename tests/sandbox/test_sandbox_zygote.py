"""A zygote's fork is a fresh run in all that matters: the state a target sees, how it
ends, and what happens when the zygote itself fails. (Every isolation, stream and
termination test also runs in "zygote" mode: see conftest.py.)"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import pytest
from sandbox_support import (
    MAIN_MODULE_ARGV,
    STUB_DIR,
    ZYGOTE_ENV,
    namespaces_possible,
    run_main,
)

import syncgrade
from syncgrade.sandbox import Limits, SandboxError, Zygote, start_sandboxed

SYSTEM_PYTHON = "/usr/bin/python3"

pytestmark = pytest.mark.skipif(not namespaces_possible(),
                                reason="a zygote's runs need the namespace jail (Linux, root)")

TARGET_STATE = """
import sys
preloaded = "json" in sys.modules  # the session zygote imported it; python alone does not
import json, os
def open_fds():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            os.readlink(f"/proc/self/fd/{name}")  # the listing's own fd is closed by now
        except OSError:
            continue
        found.append(int(name))
    return sorted(found)
caps = {line.split(":")[0]: int(line.split()[1], 16) for line in open("/proc/self/status")
        if line.startswith("Cap")}
print(json.dumps({
    "preloaded": preloaded,
    "launcher_module": "_launcher" in sys.modules,
    "caps": caps, "fds": open_fds(),
    "env": dict(os.environ), "path0": sys.path[0], "cwd": os.getcwd(),
    "uid": os.getuid(), "pid": os.getpid(), "ppid": os.getppid(),
}))
"""


def test_a_forked_target_starts_like_a_fresh_one(main_zygote: Zygote) -> None:
    out = run_main(TARGET_STATE, isolation="auto", zygote=main_zygote, env={"MINE": "1"})
    state = json.loads(out.stdout.text)
    fresh = json.loads(run_main(TARGET_STATE, isolation="auto", env={"MINE": "1"}).stdout.text)
    assert state["preloaded"] and not fresh["preloaded"]  # it really was forked
    assert not state["launcher_module"]
    # exec cleared the capabilities of a fresh target; the fork must drop them itself
    assert state["caps"] == fresh["caps"] and not any(
        state["caps"][name] for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"))
    # only stdio and the run's own pipes (result channel, stack dump, readiness): no
    # control socket of the zygote, no status fd of the launcher
    env = state["env"]
    assert state["fds"] == sorted({0, 1, 2, int(env["SYNCGRADE_CHANNEL_FD"]),
                                   int(env["SYNCGRADE_STACK_FD"]),
                                   int(env["SYNCGRADE_READY_FD"])})
    # the environment is the run's, nothing of the zygote's own
    assert set(env) - {"SYNCGRADE_READY_FD"} == set(fresh["env"])
    assert env["HOME"] == state["cwd"] and env["MINE"] == "1"
    assert state["path0"] == state["cwd"]  # as `python -m` sets it
    assert state["pid"] == fresh["pid"] == 2 and state["ppid"] == 1  # own pid namespace
    assert state["uid"] != 0


@pytest.mark.parametrize(("source", "code", "stderr"), [
    ("import sys; sys.exit(3)", 3, ""),
    ("import sys; sys.exit('bye now')", 1, "bye now"),
    ("raise ValueError('learner bug')", 1, "ValueError: learner bug"),
    ("import os; os._exit(7)", 7, ""),
])
def test_exit_status_is_what_python_would_give(main_zygote: Zygote, source: str, code: int,
                                               stderr: str) -> None:
    out = run_main(source, isolation="auto", zygote=main_zygote)
    assert (out.termination, out.returncode) == ("exited", code)
    assert stderr in out.stderr.text


def test_refuses_what_it_cannot_serve(main_zygote: Zygote) -> None:
    with pytest.raises(ValueError, match="-m"):
        Zygote([sys.executable, "main.py"], {})
    with pytest.raises(ValueError, match="serves"):
        start_sandboxed([sys.executable, "-m", "main"], zygote=main_zygote)
    with pytest.raises(ValueError, match="namespace"):
        start_sandboxed(MAIN_MODULE_ARGV, zygote=main_zygote, isolation="basic")


def test_a_failed_preload_says_why(tmp_path: Path) -> None:
    (tmp_path / "starts_thread.py").write_text(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(60,),"
        " daemon=True).start()\n")
    env = {"PYTHONPATH": str(tmp_path)}
    with Zygote(MAIN_MODULE_ARGV, env, preload=("no_such_module_xyz",)) as z, \
            pytest.raises(SandboxError, match="no_such_module_xyz"):
        z.start()
    with Zygote(MAIN_MODULE_ARGV, env, preload=("starts_thread",)) as z, \
            pytest.raises(SandboxError, match="threads"):
        z.start()


def test_an_abort_stops_a_start_whose_imports_take_long(tmp_path: Path) -> None:
    # A closing warm pool aborts its zygote's start (its jax import can take a minute on
    # a loaded machine): start() raises at its next poll instead of after the import.
    import threading

    (tmp_path / "slow_import.py").write_text("import time\ntime.sleep(600)\n")
    raised: list[BaseException] = []
    with Zygote(MAIN_MODULE_ARGV, {"PYTHONPATH": str(tmp_path)},
                preload=("slow_import",)) as z:
        def start() -> None:
            try:
                z.start()
            except BaseException as exc:
                raised.append(exc)

        starting = threading.Thread(target=start)
        starting.start()
        time.sleep(0.5)  # inside the import (it sleeps 600 s), or about to be
        z.abort()
        starting.join(timeout=60)  # one poll (0.5 s) at idle; the import takes 600 s
        assert not starting.is_alive()
    assert not z.alive()  # killed by the abort, reaped by close()
    assert len(raised) == 1 and isinstance(raised[0], SandboxError), raised
    assert "stopped before its imports" in str(raised[0])


def _pidfd_readable(pid: int, timeout: float) -> bool:
    fd = os.pidfd_open(pid)
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _pidfds() -> int:
    """How many pidfds this process holds."""
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{name}") == "anon_inode:[pidfd]"
        except OSError:
            continue
    return count


def test_a_killed_zygote_takes_its_runs_with_it_and_the_grader_is_told() -> None:
    pidfds_before = _pidfds()
    with Zygote(MAIN_MODULE_ARGV, ZYGOTE_ENV, preload=("json",)) as z:
        z.start()
        idle = start_sandboxed(MAIN_MODULE_ARGV, zygote=z, limits=Limits(wall_s=30))
        assert z.pid is not None
        os.kill(z.pid, signal.SIGKILL)
        assert _pidfd_readable(idle.pid, 5)  # its fork died with it (parent-death signal)
        started = time.monotonic()
        with pytest.raises(SandboxError, match="zygote"):
            idle.deliver(b"", {"main.py": b"print('never')"}, 10)
        assert time.monotonic() - started < 5
        assert _pidfds() == pidfds_before  # nothing of the run is left open here
        with pytest.raises(SandboxError, match="zygote"):
            start_sandboxed(MAIN_MODULE_ARGV, zygote=z)


def test_closing_the_zygote_ends_its_idle_runs() -> None:
    with Zygote(MAIN_MODULE_ARGV, ZYGOTE_ENV, preload=("json",)) as z:
        z.start()
        idle = start_sandboxed(MAIN_MODULE_ARGV, zygote=z, limits=Limits(wall_s=30))
        pid = idle.pid
    try:
        assert _pidfd_readable(pid, 5)
    finally:
        idle.discard()  # cleans up without the zygote that would have reaped it


UNPRIVILEGED_ZYGOTE_GRADER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from syncgrade.sandbox import Zygote, start_sandboxed
child = b'''
import json
caps = {line.split(":")[0]: int(line.split()[1], 16) for line in open("/proc/self/status")
        if line.startswith("Cap")}
print(json.dumps(caps))
'''
argv = [sys.executable, "-m", "await_main"]
with Zygote(argv, {"PYTHONPATH": sys.argv[2]}, preload=("json",)) as zygote:
    zygote.start()
    started = start_sandboxed(argv, zygote=zygote, readable_paths=[sys.argv[2]])
    out = started.deliver(b"", {"main.py": child, "_delivered": b""}, 20)
print(json.dumps({"caps": json.loads(out.stdout.text or "null"), "stderr": out.stderr.text,
                  "applied": {p.name: p.applied for p in out.protections}}))
"""


@pytest.mark.skipif(not (shutil.which("setpriv") and os.path.exists(SYSTEM_PYTHON)),
                    reason="needs setpriv and a system python to act as 'nobody'")
def test_an_unprivileged_graders_forked_target_keeps_no_capability() -> None:
    # In a user namespace the launcher holds every capability; a fresh target loses them
    # at exec, a forked one only because the fork drops them before running the module.
    src = str(Path(syncgrade.__file__).parents[1])
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON,
         "-c", UNPRIVILEGED_ZYGOTE_GRADER, src, STUB_DIR],
        capture_output=True, text=True, timeout=60, check=False, cwd="/")
    if done.returncode != 0:
        pytest.fail(f"unprivileged grader failed: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    if not report["applied"]["user-namespace"]:
        pytest.skip("unprivileged user namespaces are disabled on this kernel")
    assert report["caps"] is not None, report["stderr"]
    assert report["caps"]["CapEff"] == report["caps"]["CapPrm"] == 0
    assert report["caps"]["CapBnd"] == report["caps"]["CapAmb"] == 0


PREPARES = """
import os
ADOPTED = None
def prepare():
    if os.environ.get("PREPARE_FAILS"):
        raise RuntimeError("no")
    return f"made by {os.getpid()}".encode()
def adopt(data):
    global ADOPTED
    ADOPTED = [data.decode(), os.getpid()]
"""

READS_ADOPTED = "import json, prepares\nprint(json.dumps(prepares.ADOPTED))\n"


def _adopted_in_runs(zygote: Zygote, runs: int = 40) -> list[object]:
    """What successive runs of ``zygote`` find adopted, until one finds something."""
    seen: list[object] = []
    for _ in range(runs):
        seen.append(json.loads(run_main(READS_ADOPTED, isolation="auto",
                                        zygote=zygote).stdout.text))
        if seen[-1] is not None:
            break
        time.sleep(0.25)
    return seen


def test_a_prepare_runs_in_a_throwaway_fork_and_later_runs_inherit_what_it_made(
        tmp_path: Path) -> None:
    # The prepare module runs outside the jail: the zygote imports it, its fork calls
    # prepare(), the zygote adopts the bytes; a run reads them from the inherited module.
    (tmp_path / "prepares.py").write_text(PREPARES)
    env = {**ZYGOTE_ENV, "PYTHONPATH": os.pathsep.join([STUB_DIR, str(tmp_path)])}
    with Zygote(MAIN_MODULE_ARGV, env, preload=("json",), prepare="prepares") as z:
        z.start()
        seen = _adopted_in_runs(z)
        assert seen[-1] is not None, seen
        made_by, adopted_in = cast(list[object], seen[-1])
        assert adopted_in == z.pid  # kept by the zygote itself...
        assert str(made_by).startswith("made by ") and made_by != f"made by {z.pid}"  # by a fork
        again = json.loads(run_main(READS_ADOPTED, isolation="auto", zygote=z).stdout.text)
        assert again == seen[-1]  # prepared once, for every later run
    with Zygote(MAIN_MODULE_ARGV, {**env, "PREPARE_FAILS": "1"}, preload=("json",),
                prepare="prepares") as z:
        z.start()
        assert _adopted_in_runs(z, runs=4) == [None] * 4  # ignored; the runs go on
