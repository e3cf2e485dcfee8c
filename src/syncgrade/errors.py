"""The errors syncgrade's public Python API raises to its callers, shared by every layer.

These four are what a caller of ``syncgrade.grade``, of a course or of a rubric catches,
and what every entry point (CLI, service, batch, platform containers) turns into an exit
code or an HTTP status; a learner's failure is never one of them (it is in the report).
Each is re-exported where it was first defined (``syncgrade.rubric``,
``syncgrade.rubric.validation``, ``syncgrade.courses``, ``syncgrade.grading``), so either
import works. Imports nothing.

Not every exception class lives here: an entry point's or a tool's own usage error is
defined next to the code that raises and catches it, and so is each internal signal.
Defined elsewhere (tests/architecture/test_imports.py keeps this list complete):

- usage errors of one entry point or tool: ``UsageError`` (cli/common.py),
  ``ConfigError`` (platforms/entry.py), ``BatchError`` (batch.py), ``NotebookError``
  (notebook.py), ``StarterError`` (starter.py), ``ScaffoldError``
  (authoring/scaffold.py), ``ValidateUsageError`` (authoring/validate.py),
  ``CaseError`` and ``EditError`` (authoring/cases.py), ``MarkerError``
  (authoring/markers.py), ``NotReady`` (cli/package.py: an exercise not valid to
  package), ``BundleError`` (platforms/bundle.py), ``ClusterError`` and
  ``ClusterUnavailable`` (cluster.py);
- internal signals, never raised to a caller: ``SandboxError`` (sandbox/models.py),
  ``GraderKilled``, ``StartupOverrun`` and ``OutOfTime`` (grading/cause.py),
  ``ClusterTimeout`` (cluster.py: a grade's fault report), ``RunnerFull``
  (service/runner.py), ``Drained`` (service/app.py), ``Skip``
  (rubric/base.py), ``Verdict`` (rubric/intervals.py), ``DeclarationProblem``
  (rubric/declaration.py, turned into a ``RubricError``), ``DaemonUnavailable``
  (daemon.py: the CLI then grades cold), ``DeviceBusy`` (accelerator.py: the device
  lease was not had in time; the pool turns it into a ``SandboxError``).
"""

from __future__ import annotations

__all__ = ["CourseError", "RubricError", "SubmissionError", "UnknownExercise"]


class UnknownExercise(LookupError):
    """The exercise id is not one the course has."""


class RubricError(ValueError):
    """A rubric is wrong: its author must fix it. The message starts with
    ``rubric error in exercise-N:`` and names the check, call or param at fault."""


class CourseError(ValueError):
    """A course that cannot be opened (no such folder or installed course, a bad
    ``course.toml``): a usage error, one line."""


class SubmissionError(ValueError):
    """The submission could not be read at all (missing file): a usage error."""
