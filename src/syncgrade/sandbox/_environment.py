"""The defaults of every sandboxed child's scrubbed environment.

One place for both who need them: a run's environment (``_runner.child_environment``)
and a zygote's (``Zygote``), which must match what its forks would have seen at import
time.
"""

from __future__ import annotations

import os
import sys


def default_environment(home: str, tmpdir: str | None = None) -> dict[str, str]:
    """Nothing of the grader's: the interpreter's directory and the system's on ``PATH``,
    ``HOME`` (and ``TMPDIR``, if given), a UTF-8 locale, no bytecode writes, no user
    site-packages."""
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
    }
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir
    return env
