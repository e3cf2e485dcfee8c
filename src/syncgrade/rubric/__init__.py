"""The authoring façade: everything a course's ``exercise.py`` needs, in one public module.

A declaration imports from here and from nothing else of syncgrade (a test reads every
declaration's syntax tree, docs/authoring.md's examples and the ``grade new`` scaffold
included)::

    from syncgrade.rubric import (Check, CheckSpec, Exercise, GraderCall, Required,
                                  Samples, checks as c, specs as s, tolerance)

What it exports:

- the declaration's shape: :class:`Exercise`, :class:`CheckSpec`, :class:`GraderCall`,
  :class:`Required`, :class:`Samples` (the measurement contract), :class:`Part` and
  :func:`all_of`/:func:`on_intervals` (combined checks), the phase names (:data:`PHASES`,
  :data:`WARM`);
- typed check ids: :class:`Check` (``Check.NUMPY_MATCH == "numpy-match"``; strings keep
  working);
- the public namespaces of check functions and helpers: ``checks`` (every check function:
  :mod:`syncgrade.rubric.checks` re-exports them from the modules that group them by what
  they judge), ``specs`` (argument specs), ``tolerance`` (reference helpers), and the
  report models and check functions named below; ``report_checks``, ``workload_checks``
  and ``concept`` are ``checks`` too, under the names courses used before the regrouping;
- the errors and the validation an author's tools use: :class:`RubricError`,
  :class:`UnknownExercise`, :func:`validate`, :func:`validate_declaration`,
  :func:`validate_data`;
- what a course's own check is written with, in the course's own files
  (docs/authoring.md, "Writing a check in your course"): :class:`Outcome` (what a check
  returns: ``Outcome.ok``, ``Outcome.fail``, ``Outcome.skip``), :class:`Skip` (raised
  when the check cannot decide), :class:`Context` (what it reads: ``ctx.value(call,
  path)``, ``ctx.analysis(call)``, ``ctx.references``), :class:`Evidence` (what a
  failure shows), and ``intervals`` (the interval helpers the library's timing checks
  use, with :class:`Verdict`).

Parent-side only: never imported by the child process. A declaration is data; the course
loader (:mod:`syncgrade.courses`, above this package) validates and resolves it
(:mod:`syncgrade.rubric.declaration`).
"""

from __future__ import annotations

from syncgrade.analysis import PHASES
from syncgrade.errors import UnknownExercise as UnknownExercise  # re-exported
from syncgrade.models import Evidence
from syncgrade.rubric import checks, intervals, specs, tolerance
from syncgrade.rubric.base import CheckSpec, Context, Exercise, GraderCall, Outcome, Required, Skip
from syncgrade.rubric.checks_process import verification_catches_errors
from syncgrade.rubric.compose import Part, all_of, on_intervals
from syncgrade.rubric.contract import WARM, Samples
from syncgrade.rubric.ids import Check
from syncgrade.rubric.intervals import Verdict
from syncgrade.rubric.report_models import RepairReport, TimingReport
from syncgrade.rubric.validation import (
    RubricError,
    validate,
    validate_data,
    validate_declaration,
)

# The check namespaces before the checks were regrouped by concern (issue 28): each is the
# one façade now, so a course's `rc.report_schema` or `concept.answer_phases` keeps working.
report_checks = checks
workload_checks = checks
concept = checks

__all__ = [
    "PHASES",
    "WARM",
    "Check",
    "CheckSpec",
    "Context",
    "Evidence",
    "Exercise",
    "GraderCall",
    "Outcome",
    "Part",
    "RepairReport",
    "Required",
    "RubricError",
    "Samples",
    "Skip",
    "TimingReport",
    "UnknownExercise",
    "Verdict",
    "all_of",
    "checks",
    "concept",
    "intervals",
    "on_intervals",
    "report_checks",
    "specs",
    "tolerance",
    "validate",
    "validate_data",
    "validate_declaration",
    "verification_catches_errors",
    "workload_checks",
]
