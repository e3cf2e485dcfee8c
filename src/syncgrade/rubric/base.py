"""The shape of an exercise rubric and of a check, and the context checks read.

A rubric is data: the names a submission must define, the hidden inputs, the grader calls
(argument specs the child builds), the NumPy references, and an ordered list of
parameterised checks. A check is a pure function ``(context, **params) -> Outcome``. The
rubric lives in the parent process only; the child receives the calls and inputs, never
the references or the checks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from syncgrade.analysis import Analysis, analyse
from syncgrade.limits import DEFAULT_TIMEOUT_S
from syncgrade.models import CheckStatus, Evidence, Visibility
from syncgrade.trace import CallFrame, Hello, Load
from syncgrade.values import decode

ValuePath = tuple[str | int, ...]
Origin = tuple[str, int]
"""Where a declaration object was written: ``(file, line)``."""

_RUBRIC_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def declared_at() -> Origin | None:
    """The file and line of the code that is building a declaration object: the first
    caller outside this package (``rubric/``) and outside dataclass-generated code, so the
    author's ``exercise.py`` line. Author errors found later (when the course loads) name
    it."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if name != "<string>" and not name.startswith(_RUBRIC_DIR):  # "<string>": dataclass code
            return name, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
    return None


def at_text(origin: Origin | None) -> str:
    """``"path/exercise.py:12: "`` for an origin, ``""`` for none."""
    return f"{origin[0]}:{origin[1]}: " if origin else ""


@dataclass(frozen=True)
class Outcome:
    """A check's verdict before points are attached."""

    status: CheckStatus
    message: str
    hint: str = ""
    evidence: Evidence = field(default_factory=Evidence)

    @classmethod
    def ok(cls, message: str, evidence: Evidence | None = None) -> Outcome:
        return cls("passed", message, "", evidence or Evidence())

    @classmethod
    def fail(cls, message: str, hint: str, evidence: Evidence | None = None) -> Outcome:
        return cls("failed", message, hint, evidence or Evidence())

    @classmethod
    def skip(cls, message: str) -> Outcome:
        return cls("skipped", message)


class Skip(Exception):
    """Raised inside a check when what it needs is missing (e.g. the call crashed)."""


@dataclass(frozen=True)
class Required:
    """A name the submission must define: a function taking ``positional`` arguments
    (plus ``keywords``), or a module-level constant (``kind="constant"``)."""

    name: str
    params: str = ""
    positional: int = 0
    keywords: tuple[str, ...] = ()
    kind: str = "function"
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Where it was written (recorded when built), so a rubric error names that line."""

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", declared_at())

    def job(self) -> dict[str, Any]:
        return {"name": self.name, "positional": self.positional,
                "keywords": list(self.keywords), "kind": self.kind}


@dataclass(frozen=True)
class GraderCall:
    """One call of a learner function, with argument specs (see child.harness)."""

    id: str
    function: str = ""
    args: tuple[dict[str, Any], ...] = ()
    kwargs: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    attribute: str = ""
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Where it was written (recorded when built): an error in its argument specs, its
    workloads or its hidden-input names names that line."""

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", declared_at())

    def job(self) -> dict[str, Any]:
        if self.attribute:
            return {"id": self.id, "attribute": self.attribute}
        return {"id": self.id, "function": self.function, "args": list(self.args),
                "kwargs": dict(self.kwargs)}


CheckFn = Callable[..., Outcome]


@dataclass(frozen=True)
class CheckSpec:
    """A check of the rubric: its public ``id`` (a string or a
    :class:`~syncgrade.rubric.ids.Check`) and ``title``, the check function ``fn`` called
    as ``fn(ctx, **params)``, the ``points`` it is worth (> 0) and its ``visibility`` in
    learner-facing reports.

    For an id of the check registry (:mod:`syncgrade.rubric.registry`) ``title`` may be
    omitted (``""``: the registry's title; another title is a rubric error) and so may
    ``fn`` (the registry's check function): ``CheckSpec(Check.SHAPE, params={...})``.
    A declaration is data: the course loader resolves it
    (:func:`syncgrade.rubric.declaration.resolve`: registered titles and functions
    filled in, the id a plain ``str``); until then ``fn`` may be ``None``. ``origin``:
    where it was written (recorded when built), so a rubric error names that line.
    ``hint``: the author's learner-facing hint, said after the check's own hint whenever
    the check fails, never when it passes (the loader sets it from
    :attr:`Exercise.hints`)."""

    id: str
    title: str = ""
    fn: CheckFn = None  # type: ignore[assignment]  # None: the registry's, when resolved
    points: float = 1.0
    params: Mapping[str, Any] = field(default_factory=dict)
    visibility: Visibility = "visible"
    hint: str = ""
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", declared_at())


@dataclass(frozen=True)
class Exercise:
    """One exercise, declared as docs/authoring.md describes: ``id`` (a slug such as
    ``exercise-1``, the name of its folder in a course, whose ``exercise.py`` declares
    it), ``title``,
    ``version`` (bump it when verdicts can
    change), the names the learner writes (``required``), the grader calls with their
    argument specs (``calls``, see :mod:`syncgrade.rubric.specs`), the checks in report
    order, ``make_inputs()`` (hidden inputs by name) and ``make_references(inputs)``
    (expected values by name, parent-side only). The statement is the stub's README
    (:attr:`statement`)."""

    id: str
    title: str
    version: str
    required: tuple[Required, ...]
    calls: tuple[GraderCall, ...]
    checks: tuple[CheckSpec, ...]
    make_inputs: Callable[[], dict[str, np.ndarray]]
    make_references: Callable[[dict[str, np.ndarray]], dict[str, Any]]
    timeout_hint_s: float = DEFAULT_TIMEOUT_S
    isolate_calls: bool = False
    """Run each grader call in a fresh child of its own, so a submission cannot tell the
    calls apart by their order or by state an earlier call left behind (exercise-4 hands
    the same-looking arguments to a right and to subtly wrong setups)."""
    samples: tuple[Any, ...] = ()
    """Every list of samples the exercise asks for, each a
    :class:`~syncgrade.rubric.contract.Samples` (its measurement contract). The interval
    checks are derived from them when the course loader resolves the declaration
    (:func:`syncgrade.rubric.declaration.resolve`) and follow ``checks``' own in the
    report; a check id ``checks`` already declares is not derived again."""
    points: Mapping[str, float] = field(default_factory=dict)
    """Points of derived checks (default 1 each)."""
    visibility: Mapping[str, Visibility] = field(default_factory=dict)
    """Visibility of derived checks (default ``"visible"`` each): a derived check is not
    in ``checks`` until the loader resolves the declaration, so this is where a course
    withholds one (``{"sync-before-stop": "after_due_date"}``)."""
    hints: Mapping[str, str] = field(default_factory=dict)
    """A learner-facing hint of the author's for any check of the exercise (declared or
    derived), by id: said after the check's own hint whenever that check fails, never
    when it passes, never in place of its message
    (``{Check.RUNS: "Return (out, samples): the last output and the samples."}``)."""
    folder: Path | None = field(default=None, compare=False, repr=False)
    """The exercise's folder in its course (set by :mod:`syncgrade.courses` when the
    declaration loads; a declaration does not give it)."""

    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Where the declaration was written (recorded when built)."""

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", declared_at())

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.checks)

    @property
    def statement(self) -> str:
        """The statement learners read: the ``README.md`` of the exercise's folder in its
        course. The declaration does not repeat it, so there is one text to keep right."""
        if self.folder is None:
            raise ValueError(f"{self.id} was not loaded from a course folder: it has no "
                             "statement (open it with syncgrade.courses)")
        return (self.folder / "README.md").read_text(encoding="utf-8")


@dataclass
class Context:
    """Everything a check may read: frames from the child, inputs, references."""

    exercise: Exercise
    display_name: str
    hello: Hello | None
    load: Load | None
    frames: dict[str, CallFrame]
    inputs: dict[str, np.ndarray]
    references: dict[str, Any]
    termination: tuple[str, str] = ("", "")  # (what happened, what to change), if it broke
    source_lines: tuple[str, ...] = ()
    """The submission's lines, so messages can name things as the learner's code does
    (:func:`syncgrade.rubric.intervals.callee_name`); empty when not given."""
    _values: dict[str, Any] = field(default_factory=dict)
    _analyses: dict[str, Analysis] = field(default_factory=dict)

    @cached_property
    def loaded(self) -> bool:
        return self.load is not None and self.load.ok

    def frame(self, call_id: str) -> CallFrame:
        """The call's frame, or :class:`Skip` when it did not complete."""
        frame = self.frames.get(call_id)
        if not self.loaded:
            raise Skip("the submission did not load")
        if frame is None:
            raise Skip("the grader's call did not finish")
        if not frame.ok:
            raise Skip("the call raised an error (see `runs`)")
        return frame

    def value(self, call_id: str, path: ValuePath = ()) -> Any:
        if call_id not in self._values:
            self._values[call_id] = decode(self.frame(call_id).value)
        value = self._values[call_id]
        for step in path:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError) as exc:
                raise Skip(f"the return value has no part {step!r}") from exc
        return value

    def analysis(self, call_id: str) -> Analysis:
        if call_id not in self._analyses:
            self._analyses[call_id] = analyse(self.frame(call_id).events)
        return self._analyses[call_id]
