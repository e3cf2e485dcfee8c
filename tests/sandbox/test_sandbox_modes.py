"""The sandbox's modes without a jail, as docs/security.md's "What learner code can read"
table states them: root without ``CAP_SYS_ADMIN`` (Docker's default capabilities,
dropped here with ``setpriv``) and an unprivileged grader without namespaces. The grader
runs in a subprocess (the capability is dropped for the whole process tree), from the
system's Python where another uid must reach it; the child tries to read a hidden
folder and write its own working directory, and prints what it could do."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncgrade

SYSTEM_PYTHON = "/usr/bin/python3"
SETPRIV = shutil.which("setpriv")
NO_SYS_ADMIN = [str(SETPRIV), "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"]
AS_NOBODY = [str(SETPRIV), "--reuid=65534", "--regid=65534", "--clear-groups"]
SRC = str(Path(syncgrade.__file__).parents[1])

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and os.geteuid() == 0 and SETPRIV
         and os.path.exists(SYSTEM_PYTHON)),
    reason="needs Linux, root, setpriv (util-linux) and a system python")

GRADER = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from syncgrade.sandbox import run_sandboxed
hidden, isolation = sys.argv[2], sys.argv[3]
child = '''
import json, os
r = {"uid": os.getuid()}
try:
    r["hidden"] = open(os.environ["HIDDEN"] + "/answer.txt").read()
except OSError as e:
    r["hidden"] = type(e).__name__
try:
    open("mine.txt", "w").write("x"); r["workdir"] = "written"
except OSError as e:
    r["workdir"] = type(e).__name__
print(json.dumps(r))
'''
out = run_sandboxed([sys.executable, "-c", child], hidden_paths=[hidden],
                    env={"HIDDEN": hidden}, isolation=isolation)
print(json.dumps({"child": json.loads(out.stdout.text), "isolation": out.isolation,
                  "protections": {p.name: [p.applied, p.detail] for p in out.protections}}))
"""


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder every uid can traverse (pytest's tmp_path is under a root-only one)."""
    where = Path(tempfile.mkdtemp(prefix="syncgrade-modes-"))
    where.chmod(0o755)
    try:
        yield where
    finally:
        shutil.rmtree(where)


def course(place: Path, mode: int, owner: int = 0) -> Path:
    folder = place / f"course-{mode:o}-{owner}"
    folder.mkdir()
    (folder / "answer.txt").write_text("42")
    (folder / "answer.txt").chmod(0o644)
    os.chown(folder, owner, owner)
    folder.chmod(mode)
    return folder


def grade(prefix: list[str], python: str, hidden: Path,
          isolation: str = "auto") -> dict[str, Any]:
    done = subprocess.run([*prefix, python, "-c", GRADER, SRC, str(hidden), isolation],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_root_without_cap_sys_admin_keeps_a_0700_course_from_the_child(place: Path) -> None:
    """Row "root without CAP_SYS_ADMIN", an interpreter other uids can reach: the child is
    an unprivileged uid; a course folder of mode 0700 owned by root is out of its reach
    (and `hidden-paths` says so); its own workdir stays writable."""
    out = grade(NO_SYS_ADMIN, SYSTEM_PYTHON, course(place, 0o700))
    assert out["isolation"] == "basic"
    assert out["protections"]["drop-privileges"][0]
    assert out["child"]["uid"] not in (0, os.getuid())
    assert out["child"]["hidden"] == "PermissionError"
    assert out["child"]["workdir"] == "written"
    applied, detail = out["protections"]["hidden-paths"]
    assert applied and "file permissions" in detail


def test_root_without_cap_sys_admin_reads_a_world_readable_course(place: Path) -> None:
    """The same mode with the course left world-readable (the CLI, the service and batch
    change no permissions): the child reads it, and `hidden-paths` says so."""
    out = grade(NO_SYS_ADMIN, SYSTEM_PYTHON, course(place, 0o755))
    assert out["child"]["uid"] != 0 and out["child"]["hidden"] == "42"
    applied, detail = out["protections"]["hidden-paths"]
    assert not applied and "can read" in detail


def test_root_without_cap_sys_admin_and_an_unreachable_interpreter_runs_as_root(
        place: Path) -> None:
    """This machine's own interpreter (under /root, mode 0700): no other uid can run it,
    so the child stays root and reads everything; both protections say so."""
    out = grade(NO_SYS_ADMIN, sys.executable, course(place, 0o700))
    assert out["child"]["uid"] == 0 and out["child"]["hidden"] == "42"
    assert not out["protections"]["drop-privileges"][0]
    assert "ROOT" in out["protections"]["drop-privileges"][1]
    applied, detail = out["protections"]["hidden-paths"]
    assert not applied and "ROOT" in detail


def test_an_unprivileged_grader_without_namespaces_shares_its_files(place: Path) -> None:
    """Row "unprivileged user" without a user namespace (here: isolation='basic', the
    launcher's same path): the child is the grader's uid and reads the grader's own
    course even at mode 0700."""
    out = grade(AS_NOBODY, SYSTEM_PYTHON, course(place, 0o700, owner=65534), "basic")
    assert out["child"]["uid"] == 65534 and out["child"]["hidden"] == "42"
    applied, detail = out["protections"]["hidden-paths"]
    assert not applied and "65534 can read" in detail


def test_an_unprivileged_grader_with_a_user_namespace_hides_its_course(place: Path) -> None:
    """Row "unprivileged user" with a user namespace (a Linux laptop): the jail masks the
    hidden folder although the child keeps the grader's uid."""
    out = grade(AS_NOBODY, SYSTEM_PYTHON, course(place, 0o755, owner=65534))
    if not out["protections"]["user-namespace"][0]:
        pytest.fail("unprivileged user namespaces are off here: " + str(out["protections"]))
    assert out["isolation"] == "namespaces" and out["child"]["uid"] == 65534
    assert out["child"]["hidden"] in ("PermissionError", "FileNotFoundError")
    assert out["child"]["workdir"] == "written"
    assert out["protections"]["hidden-paths"][0]
