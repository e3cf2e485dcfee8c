"""The per-run directory: the child's working directory plus the launcher's private files.

Layout (``rundir`` is mode 0711 so an unprivileged child can traverse to ``work`` without
listing its siblings)::

    syncgrade-XXXX/          root, 0711
        work/                the child's cwd and HOME (chowned to the child's uid)
            tmp/             TMPDIR
        jail/                mount point of the jail's root tmpfs (namespace mode)
        config.json          launcher config, 0600, deleted by the launcher once read
        stdin                0600, opened read-only for the child, then unlinked
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any


def _safe_relative(name: str) -> PurePosixPath:
    """``name`` as a relative path that stays inside the workdir, or ValueError."""
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or any(p in ("..", "") for p in rel.parts):
        raise ValueError(f"sandbox file name must be relative and inside the workdir: {name!r}")
    return rel


class RunDir:
    """Creates the run directory; :meth:`remove` deletes it however the child left it."""

    def __init__(self, base: str | None = None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="syncgrade-", dir=base))
        try:
            os.chmod(self.path, 0o711)
            self.work = self.path / "work"
            self.work.mkdir(mode=0o755)
            (self.work / "tmp").mkdir(mode=0o755)
            self.jail = self.path / "jail"
            self.jail.mkdir(mode=0o700)
        except BaseException:  # even KeyboardInterrupt: leave no syncgrade-* behind
            remove_tree(str(self.path))
            raise

    def write_files(self, files: Mapping[str, bytes]) -> None:
        """Write each ``relative name -> bytes`` into the workdir (dirs created)."""
        for name, data in files.items():
            target = self.work / _safe_relative(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)

    def open_stdin(self, data: bytes) -> int:
        """A read-only fd over ``data`` (the file is unlinked; only the fd remains)."""
        path = self.path / "stdin"
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        ro = os.open(path, os.O_RDONLY)
        path.unlink()
        return ro

    def write_config(self, cfg: Mapping[str, Any]) -> Path:
        """Write the launcher config privately; returns its path."""
        path = self.path / "config.json"
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(cfg, f)
        return path

    def remove(self) -> None:
        """Delete the run directory however the child left it; never raises.

        See :func:`remove_tree`: no recursion and no long paths (a 5000-deep tree is
        fine), symlinks are removed, never followed, and nothing outside the run directory
        is touched: not its parent (``/tmp``), even if the child deleted or replaced the
        run directory itself.
        """
        remove_tree(str(self.path))


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_OPEN_DIRS = 64  # deeper than this, subtrees are moved up to the top (see remove_tree)


def remove_tree(root: str, max_open_dirs: int = MAX_OPEN_DIRS) -> None:
    """Delete the directory tree ``root`` (or the symlink or file at ``root``).

    Contract: never raises and always ends; removes everything it can. Every operation
    below ``root`` is relative to an open directory fd (``*at`` calls), so no path is
    ever longer than one name and no symlink is followed: a link planted by the child is
    removed, not its target. Directories the child made unreadable or unwritable are
    chmod-ed (through an ``O_PATH`` fd, so never through a link). The walk is an explicit
    stack, not recursion, and holds at most ``max_open_dirs`` fds: a subtree deeper than
    that is renamed to the top directory and removed from there, so a tree of any depth
    costs O(entries) work.
    """
    try:
        top = _open_dir(None, root)
    except OSError:
        with contextlib.suppress(OSError):  # a symlink or file in its place, or gone
            if not stat.S_ISDIR(os.lstat(root).st_mode):
                os.unlink(root)
        return
    stack: list[tuple[int, str, list[str]]] = []  # (fd, name in parent, subdirs left)
    try:
        stack.append((top, root, _clear_files(top)))
        while stack:
            fd, name, subdirs = stack[-1]
            if not subdirs:
                stack.pop()
                os.close(fd)
                if stack:
                    with contextlib.suppress(OSError):
                        os.rmdir(name, dir_fd=stack[-1][0])
                continue
            sub = subdirs.pop()
            if len(stack) >= max_open_dirs:
                flat = f".syncgrade-deep-{secrets.token_hex(8)}"
                with contextlib.suppress(OSError):
                    _make_private(fd, sub)  # moving a directory rewrites its '..' entry
                    os.rename(sub, flat, src_dir_fd=fd, dst_dir_fd=top)
                    stack[0][2].append(flat)
                continue
            try:
                child = _open_dir(fd, sub)
            except OSError:
                with contextlib.suppress(OSError):
                    os.rmdir(sub, dir_fd=fd)  # an empty unreadable dir can still go
                continue
            stack.append((child, sub, _clear_files(child)))
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(root)


def _open_dir(parent: int | None, name: str) -> int:
    """Open directory ``name`` (relative to ``parent``) without following a link; if the
    child made it unreadable, make it 0700 first (through an ``O_PATH`` fd)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        _make_private(parent, name)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _make_private(parent: int | None, name: str) -> None:
    """chmod 0700 the directory ``name`` itself, never a symlink's target: through an
    ``O_PATH`` fd (needs no permission on the directory) and its ``/proc`` link."""
    o_path = getattr(os, "O_PATH", 0)
    if not o_path or not os.path.isdir("/proc/self/fd"):  # macOS: fchmodat(NOFOLLOW)
        os.chmod(name, 0o700, dir_fd=parent, follow_symlinks=False)
        return
    path_fd = os.open(name, o_path | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC,
                      dir_fd=parent)
    try:
        os.chmod(f"/proc/self/fd/{path_fd}", 0o700)
    finally:
        os.close(path_fd)


def _clear_files(fd: int) -> list[str]:
    """Unlink every non-directory entry of the open directory ``fd``; return the names
    of its subdirectories."""
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)  # the child may have made it read-only (no effect as root)
    subdirs = []
    try:
        names = os.listdir(fd)
    except OSError:
        return []
    for name in names:
        try:
            if stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                subdirs.append(name)
            else:
                os.unlink(name, dir_fd=fd)
        except OSError:
            continue
    return subdirs
