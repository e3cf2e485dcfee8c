"""Donated inputs (issue 28): a workload spec's ``jax.jit`` options and their load-time
validation, ``donates-input`` on hand-written traces, and ``Samples(fn="")`` meaning the
learner's own jit only (no child: the recording itself is tests/child/test_donation_recorded.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_samples_measured import context, loop

from syncgrade.child import harness
from syncgrade.courses import get_exercise
from syncgrade.platforms.visibility import SAFE_HINTS
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s
from syncgrade.rubric import validation
from syncgrade.rubric.base import GraderCall
from syncgrade.rubric.contract import Samples, derived_checks
from syncgrade.rubric.registry import REGISTRY

DONATE = {"donate_argnums": [0]}


def _judge(check: Any, **call_fields: Any) -> Any:
    """``check`` on a six-sample loop whose every call event carries ``call_fields``."""
    t, diffs = loop()
    for event in t.raw:
        if event["kind"] == "call":
            event.update(call_fields)
    return check(context(t.events(), [None, [float(d) for d in diffs]]), "main", (1,))


def test_a_call_that_consumed_its_input_donates() -> None:
    outcome = _judge(c.donates_input, jit=DONATE, donated=[True, False])
    assert outcome.status == "passed", outcome.message
    assert "Each of the 6 timed calls donated its input" in outcome.message


@pytest.mark.parametrize(("fields", "says"), [
    ({}, "was made without `donate_argnums`"),
    ({"jit": {"static_argnums": [1]}}, "was made without `donate_argnums`"),
    ({"jit": DONATE, "donated": [False, False]}, "XLA did not take the buffer"),
    ({"jit": DONATE, "donated": [], "inputs": [], "numpy_args": 1}, "passes a NumPy array"),
])
def test_a_call_that_did_not_consume_its_input_fails_on_its_line(
        fields: dict[str, Any], says: str) -> None:
    outcome = _judge(c.donates_input, **fields)
    assert outcome.status == "failed"
    assert says in outcome.message
    assert "Timed interval 1: the call on line 2" in outcome.message  # the learner's line
    assert outcome.evidence is not None and outcome.evidence.timeline
    assert "donate" in outcome.hint.lower()


def test_donates_input_is_registered_with_a_learner_safe_hint() -> None:
    assert REGISTRY["donates-input"].fn is c.donates_input
    assert "donate_argnums" in SAFE_HINTS["donates-input"]


def test_the_contract_derives_donates_input_only_when_declared() -> None:
    calls = (GraderCall("main", "f", (s.host("x"), s.value(3))),)
    plain = {spec.id for spec in derived_checks([Samples("main", (1,), 3, fn="")], calls)}
    donating = derived_checks([Samples("main", (1,), 3, fn="", donates=True)], calls)
    ids = [spec.id for spec in donating]
    assert "donates-input" not in plain
    assert ids.index("times-the-call") + 1 == ids.index("donates-input")
    assert Samples("main", (1,), 3, donates=True).describe()["donates"] is True


def test_own_jit_means_never_a_handed_callable() -> None:
    # fn="" (any jit of the learner's own) and fn="step" (by name) refuse the callable the
    # grader handed over (recorded fn=1), whatever its name.
    for fn in ("", "fn"):
        outcome = c.times_the_call(_context_with(fn=1), "main", (1,), fn=fn)
        assert outcome.status == "failed"
        assert "times a function the grader handed you on line 2" in outcome.message
        own = c.times_the_call(_context_with(fn=0), "main", (1,), fn=fn)
        assert own.status == "passed", own.message
    # The default (None) still asks for the handed callable.
    assert c.times_the_call(_context_with(fn=0), "main", (1,)).status == "failed"


def _context_with(**call_fields: Any) -> Any:
    t, diffs = loop()
    for event in t.raw:
        if event["kind"] == "call":
            event.update(call_fields)
    return context(t.events(), [None, [float(d) for d in diffs]])


def test_workload_specs_carry_jit_options_only_when_given() -> None:
    assert s.workload("predict") == {"kind": "workload", "name": "predict", "warm": None}
    spec = s.workload("predict", donate_argnums=0, static_argnames="w", keep_unused=True)
    assert spec["donate_argnums"] == [0] and spec["static_argnames"] == ["w"]
    assert spec["keep_unused"] is True and "inline" not in spec
    assert harness.jit_options(spec) == {"donate_argnums": (0,), "static_argnames": ("w",),
                                         "keep_unused": True}
    assert harness.JIT_OPTIONS == s.JIT_OPTIONS


STEP = "def step(x, scale):\n    return x * scale + 1.0\n"


def _load(spec: dict[str, Any]) -> None:
    """Exercise-1 with ``spec`` as its main call's workload, and its main list of samples
    agreeing with the workload's static and donated arguments (as it must, or the rubric
    is refused for that disagreement: tests/rubric/test_author_lines.py)."""
    base = get_exercise("exercise-1")
    static = len(spec.get("static_argnums", [])) + len(spec.get("static_argnames", []))
    donates = bool(spec.get("donate_argnums") or spec.get("donate_argnames"))
    samples = tuple(dataclasses.replace(listed, static=(0,) * static or None, donates=donates)
                    if listed.call == "main" else listed for listed in base.samples)
    validation.validate(dataclasses.replace(base, samples=samples, calls=(
        GraderCall("main", "synchronized_samples", (spec, s.value([]), s.value(3))),
        *base.calls[1:])))


@pytest.mark.parametrize(("spec", "says"), [
    (s.workload("step", source=STEP, donate_argnums=2), "donate_argnums [2] is out of range"),
    (s.workload("step", source=STEP, donate_argnames="y"), "donate_argnames names ['y']"),
    (s.workload("step", source=STEP, static_argnums=0, donate_argnums=0),
     "[0] is both static and donated"),
    (s.workload("step", source=STEP, static_argnums=1, donate_argnames="scale"),
     "parameter ['scale'] of `step` is both static and donated"),
    (s.workload("step", source=STEP, donate_argnums=[-1]), "donate_argnums must be"),
    (s.workload("step", source=STEP, keep_unused="yes"),  # type: ignore[arg-type]
     "keep_unused must be True or False"),
    (s.workload("predict", donate_argnames="z"), "`predict` has no parameter"),
    (s.probe_like("predict", 0.1) | {"donate_argnums": [0]},
     "a probe_like workload takes no jit options (donate_argnums)"),
])
def test_wrong_jit_options_are_named_when_the_rubric_loads(spec: dict[str, Any],
                                                          says: str) -> None:
    with pytest.raises(validation.RubricError) as raised:
        _load(spec)
    assert says in str(raised.value)


def test_right_jit_options_load() -> None:
    _load(s.workload("step", source=STEP, donate_argnums=0, static_argnums=1))
    _load(s.workload("predict", donate_argnames=("x",), inline=True))
    _load(s.factory("step", source=STEP, donate_argnames="x", static_argnames="scale"))


def test_the_built_in_workloads_parameters_match_the_childs() -> None:
    # The parent never imports jax: validation keeps its own copy of each built-in
    # workload's parameters, to check the jit options' positions and names.
    import inspect

    from syncgrade.child import workloads

    assert set(validation.BUILTIN_PARAMETERS) == set(workloads.WORKLOADS) == s.BUILTIN_WORKLOADS
    for name, fn in workloads.WORKLOADS.items():
        assert tuple(inspect.signature(fn).parameters) == validation.BUILTIN_PARAMETERS[name]


def test_only_a_donated_list_asks_for_a_fresh_input_in_each_sample() -> None:
    """Issue 35: exercise-10's placement and readiness hints said to place or wait
    "before the timed loop", where its statement asks for a fresh input per sample,
    placed and ready before each sample's timer starts. The hint follows the list's
    declaration (``donates``) in every exercise, not exercise-10's id."""
    from types import SimpleNamespace
    from typing import cast

    from syncgrade.courses import open_course
    from syncgrade.rubric.base import Context
    from syncgrade.rubric.intervals import FRESH_INPUT_HINT, fresh_input_per_sample

    course = open_course(None)
    asked = {exercise_id for exercise_id, exercise in course.exercises.items()
             for samples in exercise.samples
             if fresh_input_per_sample(cast(Context, SimpleNamespace(exercise=exercise)),
                                       samples.call)}
    assert asked == {e for e, x in course.exercises.items()
                     if any(getattr(s, "donates", False) for s in x.samples)}
    assert "exercise-10" in asked
    statement = course.folder("exercise-10").readme.read_text(encoding="utf-8")
    assert "fresh device copy of `x_host`" in statement
    assert "placed and ready **before** the timer starts" in statement
    assert "Inside the loop, once per sample and before the line that starts the timer" \
        in FRESH_INPUT_HINT and "before the timed loop" not in FRESH_INPUT_HINT
