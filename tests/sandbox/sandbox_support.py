"""Helpers for the sandbox tests: plain-Python child scripts, no jax.

Kept out of ``conftest.py`` so test modules can import them by a unique module name.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Callable
from typing import Any

from syncgrade.sandbox import (
    Isolation,
    Limits,
    SandboxOutcome,
    Zygote,
    run_sandboxed,
    start_sandboxed,
)

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


STUB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zygote_stub")
MAIN_MODULE_ARGV = [sys.executable, "-m", "await_main"]
"""What a zygote serves in these tests: ``zygote_stub/await_main.py``, which runs the
run's ``main.py`` once it has been delivered."""
ZYGOTE_ENV = {"PYTHONPATH": STUB_DIR, "PYTHONDONTWRITEBYTECODE": "1"}
"""A zygote of MAIN_MODULE_ARGV starts with this environment (the stub on its path)."""


def run_main(source: str, *, isolation: Isolation, wall_s: float = 10.0,
             extra_files: dict[str, bytes] | None = None, limits: Limits | None = None,
             zygote: Zygote | None = None, **kwargs: Any) -> SandboxOutcome:
    """Run ``source`` as ``main.py`` in a fresh sandbox: ``python main.py`` through the
    launcher, or, given a zygote (of :data:`MAIN_MODULE_ARGV`), ``python -m main`` forked
    from it (through the stub that waits for delivery), pre-started and then delivered
    its files and stdin at once."""
    files = {"main.py": script(source), **(extra_files or {})}
    limits = limits or Limits(wall_s=wall_s)
    if zygote is None:
        return run_sandboxed([sys.executable, "main.py"], files=files, isolation=isolation,
                             limits=limits, **kwargs)
    stdin = kwargs.pop("stdin", b"")
    readable = [*kwargs.pop("readable_paths", ()), STUB_DIR]
    started = start_sandboxed(MAIN_MODULE_ARGV, isolation=isolation, limits=limits,
                              zygote=zygote, readable_paths=readable, **kwargs)
    return started.deliver(stdin, {**files, "_delivered": b""}, limits.wall_s,
                           startup_s=limits.startup_s, end_s=limits.end_s)


def namespaces_possible() -> bool:
    """Whether this machine can build the namespace jail (Linux as root)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0
