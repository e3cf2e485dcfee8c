"""The check library, one namespace: every check function and its public helpers.

A course's declaration spells a check ``c.numpy_match`` after ``from syncgrade.rubric import
checks as c`` (docs/authoring.md); that spelling is public API and stays, wherever the
function lives. The functions live in modules named by what they judge:

- :mod:`~syncgrade.rubric.checks_process`: the learner's program runs, and its own check
  fails when it should;
- :mod:`~syncgrade.rubric.checks_values`: the returned values (results, shapes, sample
  lists, the learner's reference);
- :mod:`~syncgrade.rubric.checks_intervals`: what one timed interval holds (one call, its
  wait, nothing else);
- :mod:`~syncgrade.rubric.checks_phases`: the phases an interval excludes or includes
  (placement, compilation, readback);
- :mod:`~syncgrade.rubric.checks_report`: the fields of the reports learners return;
- :mod:`~syncgrade.rubric.checks_answers`: concept answers against an answer key.

This module only re-exports them (and :data:`CHECKS`); it defines no check. The names
``report_checks``, ``workload_checks`` and ``concept`` of :mod:`syncgrade.rubric` are this
module too: the namespaces courses used before the checks were regrouped (issue 28).
"""

from __future__ import annotations

from collections.abc import Callable

from syncgrade.rubric.base import Outcome
from syncgrade.rubric.checks_answers import answer_choice, answer_phases, snippet_picture
from syncgrade.rubric.checks_intervals import (
    MOVE_OUT,
    OTHER_WORK,
    covers_device_work,
    donates_input,
    interval_clean,
    jitted,
    plain_static,
    sample_duration,
    samples_in_order,
    samples_measured,
    sync_before_stop,
    times_the_call,
)
from syncgrade.rubric.checks_phases import (
    inputs_ready,
    placed_inside,
    placement_excluded,
    placement_included,
    readback_included,
    unplaced_inputs,
    warmup_excluded,
)
from syncgrade.rubric.checks_process import (
    runs,
    verification_catches_errors,
)
from syncgrade.rubric.checks_report import (
    EXPLAINED_EXTRA,
    EXPLAINED_MISSING,
    GPU_NAMES,
    MAX_LISTED,
    Loc,
    boundary_matches,
    declared_phases,
    device_matches,
    dtype_of,
    environment,
    field_path,
    first_call_includes_compile,
    first_intervals,
    grouped_problems,
    json_problems,
    phase_words,
    report_schema,
    schema_errors,
    split_first_warm,
    summary_stats,
    warm_intervals,
    workload_matches,
)
from syncgrade.rubric.checks_values import (
    UNIT_NAMES,
    list_length,
    numpy_match,
    reference_is_numpy,
    sample_count,
    shape,
    shape_difference,
)

CHECKS: dict[str, Callable[..., Outcome]] = {
    "runs": runs,
    "numpy-match": numpy_match,
    "shape": shape,
    "sample-count": sample_count,
    "samples-measured": samples_measured,
    "times-the-call": times_the_call,
    "sync-before-stop": sync_before_stop,
    "placement-excluded": placement_excluded,
    "warmup-excluded": warmup_excluded,
    "inputs-ready": inputs_ready,
    "covers-device-work": covers_device_work,
}
"""The reusable checks of the former ``checks`` module by the id they usually serve
(docs/authoring.md)."""

__all__ = [
    "CHECKS",
    "EXPLAINED_EXTRA",
    "EXPLAINED_MISSING",
    "GPU_NAMES",
    "MAX_LISTED",
    "MOVE_OUT",
    "OTHER_WORK",
    "UNIT_NAMES",
    "Loc",
    "answer_choice",
    "answer_phases",
    "boundary_matches",
    "covers_device_work",
    "declared_phases",
    "device_matches",
    "donates_input",
    "dtype_of",
    "environment",
    "field_path",
    "first_call_includes_compile",
    "first_intervals",
    "grouped_problems",
    "inputs_ready",
    "interval_clean",
    "jitted",
    "json_problems",
    "list_length",
    "numpy_match",
    "phase_words",
    "placed_inside",
    "placement_excluded",
    "placement_included",
    "plain_static",
    "readback_included",
    "reference_is_numpy",
    "report_schema",
    "runs",
    "sample_count",
    "sample_duration",
    "samples_in_order",
    "samples_measured",
    "schema_errors",
    "shape",
    "shape_difference",
    "snippet_picture",
    "split_first_warm",
    "summary_stats",
    "sync_before_stop",
    "times_the_call",
    "unplaced_inputs",
    "verification_catches_errors",
    "warm_intervals",
    "warmup_excluded",
    "workload_matches",
]
