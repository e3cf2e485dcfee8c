"""Helpers for the sandbox tests: plain-Python child scripts, no jax.

Kept out of ``conftest.py`` so test modules can import them by a unique module name.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Callable
from typing import Any

from syncgrade.sandbox import Limits, SandboxOutcome, run_sandboxed

Runner = Callable[..., SandboxOutcome]

# faulthandler setup every timeout test uses, exactly as the real child runner does it.
ARM_STACK_DUMP = """\
import faulthandler, os, signal
faulthandler.register(signal.SIGUSR1, file=int(os.environ["SYNCGRADE_STACK_FD"]),
                      all_threads=True)
"""


def script(source: str) -> bytes:
    """Dedented child source as bytes."""
    return textwrap.dedent(source).encode()


def run_main(source: str, *, isolation: str, wall_s: float = 10.0,
             extra_files: dict[str, bytes] | None = None, limits: Limits | None = None,
             **kwargs: Any) -> SandboxOutcome:
    """Run ``source`` as ``main.py`` in a fresh sandbox."""
    files = {"main.py": script(source), **(extra_files or {})}
    return run_sandboxed([sys.executable, "main.py"], files=files, isolation=isolation,
                         limits=limits or Limits(wall_s=wall_s), **kwargs)


def namespaces_possible() -> bool:
    """Whether this machine can build the namespace jail (Linux as root)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0
