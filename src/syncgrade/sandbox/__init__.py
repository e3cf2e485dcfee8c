"""Run one untrusted child command under limits; report what happened as a value.

Pure standard library (plus ctypes on Linux): the grader process never imports jax.
See ``docs/security.md`` for the threat model and what each isolation level protects.

Typical use by the grading engine::

    outcome = run_sandboxed(
        [sys.executable, "-m", "syncgrade.child", "submission.py"],
        files={"submission.py": source},
        limits=Limits(wall_s=30),
        hidden_paths=[rubric_dir, solutions_dir],
    )
    frames = outcome.frames          # what the child wrote to $SYNCGRADE_CHANNEL_FD
    outcome.termination              # "exited" | "timeout" | "memory" | "signal" | "cpu"
"""

from ._capture import FrameDecoder
from ._launcher import namespaces_available
from ._pump import Pump
from ._runner import (
    CHANNEL_FD_VAR,
    READY_FD_VAR,
    STACK_FD_VAR,
    PreStarted,
    run_sandboxed,
    start_sandboxed,
    unprotected_reason,
)
from ._workdir import RunDir, remove_tree
from ._zygote import Zygote
from .models import (
    Captured,
    Isolation,
    Limits,
    Protection,
    SandboxError,
    SandboxOutcome,
    Termination,
)

__all__ = [
    "CHANNEL_FD_VAR",
    "READY_FD_VAR",
    "STACK_FD_VAR",
    "Captured",
    "FrameDecoder",
    "Isolation",
    "Limits",
    "PreStarted",
    "Protection",
    "Pump",
    "RunDir",
    "SandboxError",
    "SandboxOutcome",
    "Termination",
    "Zygote",
    "namespaces_available",
    "remove_tree",
    "run_sandboxed",
    "start_sandboxed",
    "unprotected_reason",
]
