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
import shutil
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
        os.chmod(self.path, 0o711)
        self.work = self.path / "work"
        self.work.mkdir(mode=0o755)
        (self.work / "tmp").mkdir(mode=0o755)
        self.jail = self.path / "jail"
        self.jail.mkdir(mode=0o700)

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
        """Delete the run directory even if the child made parts of it unwritable.

        shutil.rmtree never follows symlinks, so a link planted by the child to
        elsewhere is removed, not its target. The error handler only ever touches
        paths strictly inside the run directory: never its parent (``/tmp``), even if
        the child deleted or replaced the run directory itself.
        """
        root = str(self.path)

        def inside(path: str) -> bool:
            return path == root or path.startswith(root + os.sep)

        def fix_and_retry(func: Any, path: str, _exc: object) -> None:
            if not inside(path) or not os.path.lexists(path):
                return
            for p in (os.path.dirname(path), path):
                with contextlib.suppress(OSError):
                    if inside(p) and stat.S_ISDIR(os.lstat(p).st_mode):
                        os.chmod(p, 0o700)
            with contextlib.suppress(OSError):
                func(path)

        shutil.rmtree(root, onerror=fix_and_retry)
