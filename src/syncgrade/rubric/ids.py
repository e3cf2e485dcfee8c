"""The public check ids, typed: ``Check.NUMPY_MATCH`` is ``"numpy-match"``.

A declaration may name a check by its string id (``"numpy-match"``) or by this enum; the
enum lets mypy catch a typo (``Check.NUMPY_MACTH`` is an attribute error) before the
course loader does (an unknown id is a rubric error with the nearest registered id). A
test keeps the members equal to the check registry
(:data:`syncgrade.rubric.registry.REGISTRY`). Imports nothing.
"""

from __future__ import annotations

from enum import StrEnum


class Check(StrEnum):
    """Every registered check id (docs/checks.md). A member is a ``str`` equal to its id,
    so it works wherever an id string does."""

    RUNS = "runs"
    NUMPY_MATCH = "numpy-match"
    SHAPE = "shape"
    SAMPLE_COUNT = "sample-count"
    SAMPLES_MEASURED = "samples-measured"
    TIMES_THE_CALL = "times-the-call"
    INPUTS_READY = "inputs-ready"
    PLACEMENT_EXCLUDED = "placement-excluded"
    PLACEMENT_INCLUDED = "placement-included"
    WARMUP_EXCLUDED = "warmup-excluded"
    FIRST_CALL_INCLUDES_COMPILE = "first-call-includes-compile"
    SYNC_BEFORE_STOP = "sync-before-stop"
    INTERVAL_CLEAN = "interval-clean"
    SAMPLE_DURATION = "sample-duration"
    DONATES_INPUT = "donates-input"
    READBACK_INCLUDED = "readback-included"
    COVERS_DEVICE_WORK = "covers-device-work"
    VERIFICATION_CATCHES_ERRORS = "verification-catches-errors"
    REFERENCE_IS_NUMPY = "reference-is-numpy"
    JITTED = "jitted"
    BOUNDARY_MATCHES = "boundary-matches"
    REPORT_SCHEMA = "report-schema"
    SUMMARY_STATS = "summary-stats"
    ENVIRONMENT = "environment"


def plain(check_id: object) -> object:
    """``check_id`` as a plain ``str`` when it is one (a :class:`Check` member included),
    else unchanged (validation reports a non-string id)."""
    return str.__str__(check_id) if isinstance(check_id, str) else check_id
