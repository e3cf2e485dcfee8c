"""The run directory is removed however the child left it, and nothing outside is touched.

Covers ``syncgrade.sandbox.remove_tree`` directly (deep trees, unreadable directories, read-only
files, planted symlinks, a run directory replaced by a link), as an unprivileged user
where permissions matter, and through ``run_sandboxed`` in both isolation modes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from sandbox_support import Runner, namespaces_possible

from syncgrade.sandbox import remove_tree

SYSTEM_PYTHON = "/usr/bin/python3"


def _deep_tree(root: Path, depth: int) -> Path:
    """``root/a/a/.../a`` ``depth`` levels deep, built with relative names (the full path
    is far longer than PATH_MAX), with a read-only file and a mode-000 directory at the
    bottom and read-only directories on the way; returns ``root``."""
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(depth):
            os.mkdir("a", dir_fd=fd)
            child = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            if level % 500 == 0:
                os.chmod(fd, 0o500)  # read-only directory on the way down
            os.close(fd)
            fd = child
        file_fd = os.open("ro.txt", os.O_CREAT | os.O_WRONLY, 0o400, dir_fd=fd)
        os.close(file_fd)
        os.mkdir("locked", dir_fd=fd)
        os.chmod(fd, 0o500)
    finally:
        os.close(fd)
    return root


# The cost bounds below are CPU seconds of this process (user + system, which includes the
# removal's system calls), not wall seconds: they are there to catch a removal that is
# quadratic in the tree's depth or width (tens of seconds), and the wall clock also counts
# every other process the machine runs, which once failed them under a loaded test suite.


def test_a_5000_deep_tree_with_locked_parts_is_removed_quickly(tmp_path: Path) -> None:
    root = _deep_tree(tmp_path / "run", 5000)
    started = time.process_time()
    remove_tree(str(root))
    used = time.process_time() - started
    assert not root.exists()
    assert list(tmp_path.iterdir()) == []
    assert used < 5, f"removing 5000 levels took {used:.1f} CPU s"


def test_wide_trees_cost_linear_time(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    for i in range(3000):
        (root / f"d{i}").mkdir()
        (root / f"d{i}" / "f").write_bytes(b"x")
    started = time.process_time()
    remove_tree(str(root))
    assert not root.exists() and time.process_time() - started < 5


def test_planted_symlinks_are_removed_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.chmod(outside / "keep.txt", 0o644)
    root = tmp_path / "run"
    (root / "sub").mkdir(parents=True)
    (root / "link-dir").symlink_to(outside)
    (root / "sub" / "link-file").symlink_to(outside / "keep.txt")
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    os.chmod(root / "sub", 0)
    remove_tree(str(root))
    assert not root.exists()
    assert (outside / "keep.txt").read_text() == "keep"
    assert (outside / "keep.txt").stat().st_mode & 0o777 == 0o644  # never chmod-ed
    assert outside.stat().st_mode & 0o777 == 0o755


def test_a_run_directory_replaced_by_a_link_removes_only_the_link(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    link = tmp_path / "syncgrade-run"
    link.symlink_to(target)
    remove_tree(str(link))
    assert not os.path.lexists(link)
    assert (target / "keep.txt").read_text() == "keep"
    remove_tree(str(tmp_path / "gone"))  # already deleted: nothing to do, no error


def test_depth_limit_flattens_instead_of_opening_thousands_of_fds(
        tmp_path: Path) -> None:
    root = _deep_tree(tmp_path / "run", 300)
    fds_before = len(os.listdir("/proc/self/fd"))
    remove_tree(str(root), max_open_dirs=4)
    assert not root.exists()
    assert len(os.listdir("/proc/self/fd")) == fds_before  # every fd closed


UNPRIVILEGED_CLEANUP = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
import _workdir
root = os.path.join(sys.argv[2], "run")
os.mkdir(root)
fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
for level in range(3000):
    os.mkdir("a", dir_fd=fd)
    child = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.fchmod(fd, 0o500 if level % 3 else 0o100)  # read-only, or search-only
    os.close(fd)
    fd = child
os.close(os.open("ro.txt", os.O_CREAT | os.O_WRONLY, 0o400, dir_fd=fd))
os.mkdir("locked", dir_fd=fd)
os.chmod("locked", 0, dir_fd=fd)
os.fchmod(fd, 0)
os.close(fd)
started = time.process_time()
_workdir.remove_tree(root)
print(os.path.lexists(root), round(time.process_time() - started, 3))
"""


@pytest.mark.skipif(not (namespaces_possible() and shutil.which("setpriv")
                         and os.path.exists(SYSTEM_PYTHON)),
                    reason="needs root, setpriv and a system python to act as 'nobody'")
def test_an_unprivileged_grader_removes_locked_deep_trees(tmp_path: Path) -> None:
    # As root, permissions never stop the removal; as an ordinary user they do unless
    # remove_tree chmods what the child locked. Run it as 'nobody' on a tree it owns.
    owned = Path(tempfile.mkdtemp(prefix="syncgrade-test-"))
    code = owned / "code"
    code.mkdir()
    # The module alone (standard library only), as a grader without the package runs it.
    shutil.copy(sys.modules[remove_tree.__module__].__file__ or "", code / "_workdir.py")
    for path in (owned, code, code / "_workdir.py"):
        os.chmod(path, 0o755)
        os.chown(path, 65534, 65534)
    try:
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON,
             "-c", UNPRIVILEGED_CLEANUP, str(code), str(owned)],
            capture_output=True, text=True, timeout=60, check=False)
    finally:
        remove_tree(str(owned))
    assert done.returncode == 0, done.stderr[-2000:]
    exists, seconds = done.stdout.split()
    assert exists == "False" and float(seconds) < 5


def test_a_child_leaving_a_deep_locked_tree_leaves_no_run_directory(
        run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    out = run(
        """
        import os
        for _ in range(2500):  # 5000 characters of path: past PATH_MAX, and 39 x 64 fds
            os.mkdir("a")
            os.chdir("a")
        open("ro.txt", "w").close()
        os.chmod("ro.txt", 0o400)
        os.chmod(".", 0o500)
        print("built")
        """,
        wall_s=20,
    )
    assert out.stdout.text == "built\n", out.stderr.text[-2000:]
    assert list(base.iterdir()) == []
