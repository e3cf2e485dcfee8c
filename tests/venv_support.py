"""A fresh venv that holds this environment's dependencies but not syncgrade, for the tests
that install the built wheel the way a user would (tests/courses/test_course_outside.py, the
Gradescope bundle in tests/platforms/test_platform_deploy.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

_NOT_LINKED = ("syncgrade", "__editable__", "__pycache__")


def venv_without_syncgrade(where: Path, base: str = sys.executable) -> Path:
    """Make a venv at ``where`` (no pip) whose site-packages holds hard links of this
    environment's packages (jax, numpy, pydantic...; links, so the sandbox sees them inside
    the venv) and no syncgrade; returns its python. ``base``: the interpreter it is made
    from (the same Python version as this one: the packages' compiled parts are linked)."""
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True,
                   timeout=120)
    python = where / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    ours = Path(sysconfig.get_paths()["purelib"])
    for entry in ours.iterdir():
        if not entry.name.startswith(_NOT_LINKED) and not (site / entry.name).exists():
            _link_tree(entry, site / entry.name)
    return python


def _link_tree(source: Path, target: Path) -> None:
    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:  # another file system: a copy
            shutil.copy2(src, dst)

    if source.is_dir():
        shutil.copytree(source, target, copy_function=link, symlinks=True)
    else:
        link(str(source), str(target))
