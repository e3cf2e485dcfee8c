"""Rubrics are validated when they load: an author's mistake is one line naming the
exercise, the check and the param, reported as the author's error (CLI exit 2), never as
a learner's "not your fault"."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from syncgrade import cli
from syncgrade.courses import EXERCISES, RUBRIC_ERRORS, get_exercise
from syncgrade.rubric import RubricError, validate
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s
from syncgrade.rubric.base import CheckSpec, Exercise, GraderCall
from syncgrade.rubric.compose import all_of

BASE = get_exercise("exercise-1")


def with_checks(*checks: CheckSpec, exercise: Exercise = BASE) -> Exercise:
    # The exercise's hints name its own checks (`runs`), which ``checks`` may leave out.
    return dataclasses.replace(exercise, checks=checks, hints={})


def problem(exercise: Any) -> str:
    with pytest.raises(RubricError) as caught:
        validate(exercise)
    text = str(caught.value)
    assert text.startswith("rubric error in exercise-1: "), text
    assert "\n" not in text  # one line
    return text


def test_every_shipped_rubric_is_valid() -> None:
    assert RUBRIC_ERRORS == {}
    assert len(EXERCISES) >= 9
    for exercise in EXERCISES.values():
        validate(exercise)


def test_unknown_param_names_the_check_and_the_param() -> None:
    text = problem(with_checks(CheckSpec("times-the-call", "", c.times_the_call, 1,
                                         {"call": "main", "sample": (1,)})))
    assert "check 'times-the-call' (times_the_call): unknown param 'sample'" in text
    assert "it takes: call, samples, calls" in text


def test_missing_param() -> None:
    text = problem(with_checks(CheckSpec("sample-count", "", c.sample_count, 1,
                                         {"call": "main", "samples": (1,)})))
    assert "check 'sample-count' (sample_count): missing param 'count'" in text


def test_params_inside_all_of_parts_are_checked() -> None:
    text = problem(with_checks(CheckSpec("sync-before-stop", "", all_of, 1, {"parts": (
        ("", c.sync_before_stop, {"call": "main", "samples": (1,)}),
        ("probe", c.covers_device_work, {"call": "probe", "samples": (1,), "fractoin": 0.3}),
    )})))
    assert "check 'sync-before-stop' (all_of), part 2 (covers_device_work): unknown param " \
           "'fractoin'" in text


def test_call_ids_must_exist() -> None:
    text = problem(with_checks(CheckSpec("runs", "", c.runs, 1, {"calls": ("main", "prob")})))
    assert "param calls names 'prob', which is not a grader call; did you mean `probe`? " \
           "(calls: main, probe)" in text
    text = problem(with_checks(CheckSpec("x", "X", c.list_length, 1, {
        "call": "man", "value": (0,), "count": 1, "name": "x", "each": "row"})))
    assert "param call='man' is not a grader call" in text


def test_reference_keys_must_exist() -> None:
    text = problem(with_checks(CheckSpec("numpy-match", "", c.numpy_match, 1, {
        "call": "main", "result": (0,), "reference": "predcit"})))
    assert "check 'numpy-match' (numpy_match): param reference='predcit' is not a key of " \
           "make_references(); did you mean `predict`? (it gives: predict)" in text


def test_check_ids_unique_and_points_positive() -> None:
    runs = CheckSpec("runs", "", c.runs, 1, {"calls": ("main",)})
    assert "check 'runs': the id is used twice" in problem(with_checks(runs, runs))
    zero = dataclasses.replace(runs, points=0)
    assert "check 'runs': points must be a number > 0, not 0" in problem(with_checks(zero))
    hidden = dataclasses.replace(runs, visibility="secret")  # type: ignore[arg-type]
    assert "visibility 'secret'" in problem(with_checks(hidden))


def calls(*args: dict[str, Any]) -> Exercise:
    return dataclasses.replace(BASE, calls=(GraderCall("main", "synchronized_samples", args),
                                            *BASE.calls[1:]))


def test_workload_names_and_declared_sources() -> None:
    assert "unknown workload 'predcit'" in problem(calls(s.workload("predcit")))
    text = problem(calls(s.workload("f", source="def g(x):\n    return x\n")))
    assert "the source of workload 'f' defines no top-level `def f(...)`" in text
    text = problem(calls(s.workload("f", source="def f(x:\n")))
    assert "the source of workload 'f' does not parse" in text
    text = problem(calls(s.workload("f", source="def f(x):\n    return x\n",
                                    static_argnums=(1,))))
    assert "static_argnums [1] is out of range" in text
    static = calls(s.workload("f", source="def f(x, k):\n    return x * k\n",
                              static_argnums=(1,)), s.value(1), s.value(2))
    validate(dataclasses.replace(static, samples=tuple(
        dataclasses.replace(listed, static=(2,)) if listed.call == "main" else listed
        for listed in static.samples)))


def test_hidden_input_names_and_spec_kinds() -> None:
    text = problem(calls(s.tuple_of(s.device("x"), s.device("v"))))
    assert "call 'main': no hidden input named 'v' (make_inputs() gives: w, x)" in text
    assert "is not an argument spec" in problem(calls({"kind": "lambda"}))
    assert "is not JSON" in problem(calls(s.value(object())))
    # A workload's bound arguments and a device fault (exercise-4) are checked too.
    bound = problem(calls(s.workload("predict", bind=[s.device("v")])))
    assert "no hidden input named 'v'" in bound
    assert "unknown device fault 'slow'" in problem(calls(s.jax_device(fault="slow")))
    validate(calls(s.workload("predict", bind=[s.device("x")]),
                   s.jax_device(fault="bfloat16-tanh")))


def test_probe_variants_are_checked_like_workloads_and_probes() -> None:
    validate(calls(s.probe_like("predict", 0.1, warm=[s.device("x"), s.device("w")]),
                   s.probe_factory(0.1), s.probe_args(0.1)))
    assert "unknown workload 'predcit'" in problem(calls(s.probe_like("predcit", 0.1)))
    assert "no hidden input named 'v'" in problem(
        calls(s.probe_like("predict", 0.1, warm=[s.device("v")])))
    assert "probe seconds must be a number in (0, 10]" in problem(
        calls(s.probe_like("predict", 0)))
    assert "probe seconds must be a number in (0, 10]" in problem(
        calls(s.probe_factory(11)))


def test_calls_must_use_required_functions() -> None:
    exercise = dataclasses.replace(BASE, calls=(GraderCall("main", "synchronised_samples"),))
    assert "function 'synchronised_samples' is not a required function" in problem(exercise)


def test_a_broken_declaration_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    from syncgrade.courses import open_course

    declarations = {
        "exercise-1": open_course().folder("exercise-1").declaration.read_text(),
        "exercise-98": "EXERCISE = 1 / 0\n",
        "exercise-99": (
            "import dataclasses\nfrom syncgrade.rubric import checks as c\n"
            "from syncgrade.courses import get_exercise\n"
            "from syncgrade.rubric.base import CheckSpec\n"
            "EXERCISE = dataclasses.replace(get_exercise('exercise-1'), id='exercise-99', "
            "checks=(\n    CheckSpec('runs', 'Runs', c.runs, 1, {'call': 'main'}),))\n"),
    }
    for exercise_id, text in declarations.items():
        (tmp_path / exercise_id).mkdir()
        (tmp_path / exercise_id / "exercise.py").write_text(text)
    course = open_course(tmp_path)
    assert list(course.exercises) == ["exercise-1"]
    assert str(course.errors["exercise-98"]) == (
        f"rubric error in exercise-98: {tmp_path / 'exercise-98' / 'exercise.py'}:1: failed "
        "to import: ZeroDivisionError: division by zero")
    assert str(course.errors["exercise-99"]) == (
        f"rubric error in exercise-99: {tmp_path / 'exercise-99' / 'exercise.py'}:6: "
        "check 'runs' (runs): unknown param 'call'; did you mean `calls`? (it takes: calls)")
    with pytest.raises(RubricError, match="exercise-98"):
        get_exercise("exercise-98", course=tmp_path)


def test_get_exercise_and_the_cli_report_a_broken_rubric_to_the_author(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    error = RubricError("rubric error in exercise-1: check 'runs' (runs): unknown param "
                        "'call' (it takes: calls)")
    monkeypatch.setitem(RUBRIC_ERRORS, "exercise-1", error)
    with pytest.raises(RubricError):
        get_exercise("exercise-1")
    submission = tmp_path / "submission.py"
    submission.write_text("x = 1\n")
    assert cli.main(["exercise-1", str(submission)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err == f"grade: {error}\n"
    assert "not your fault" not in err
