"""Stage 4: one sandboxed child run of a job, in a warm pool or cold."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from syncgrade import sandbox
from syncgrade.grading.job import build_job, hidden_paths
from syncgrade.grading.submission import Submission
from syncgrade.pool import WarmPool, run_cold, shared_pool
from syncgrade.rubric.base import Exercise, GraderCall

MIN_RUN_S = 0.01
"""The least learner time a further child of an isolated exercise starts with. Its
children share the learner's timeout, each counting only from its hello frame (their
start-ups are the grader's), so a further child gets what the earlier ones left; one
left with (next to) nothing still runs and times out, and the report says ``timeout``,
the learner's, not that grading could not finish."""

@dataclass(frozen=True)
class ChildRun:
    """One sandboxed child: what it was asked to run and what came back."""

    outcome: sandbox.SandboxOutcome
    key: bytes
    call_ids: tuple[str, ...]

def run_child(exercise: Exercise, submission: Submission, inputs_npz: bytes,
               calls: Sequence[GraderCall], limits: sandbox.Limits, *,
               pool: WarmPool | None = None,
               hidden: Sequence[Path] | None = None, cold: bool = False) -> ChildRun:
    """One child run of ``calls`` with the hidden inputs ``inputs_npz``
    (:func:`syncgrade.grading.hidden.npz_bytes`): in ``pool`` (or the process-wide pool)
    when given, else cold; ``cold``: cold whatever the pool (the retry after a kill).
    The job, with its fresh key, exists only from here on. ``hidden``: the course folder
    the child must not see (default: the exercise's, :func:`hidden_paths`)."""
    assert submission.source is not None
    job = build_job(exercise, submission, calls)
    stdin = json.dumps(job).encode()
    files = {"submission.py": submission.source.encode(), "inputs.npz": inputs_npz}
    pool = None if cold else pool if pool is not None else shared_pool()
    hidden = hidden_paths(exercise) if hidden is None else tuple(hidden)
    outcome = (pool.run(stdin, files, limits, hidden=hidden) if pool is not None
               else run_cold(stdin, files, limits, hidden=hidden))
    return ChildRun(outcome, bytes.fromhex(job["key"]), tuple(c.id for c in calls))
