"""The check registry (``rubric/registry.py``): one definition per check id, and what the
rubrics take from it. Params of the wrong type are a rubric error when the rubric loads,
naming the exercise, the check, the param, the type and the value; titles are the
registry's; docs/checks.md's table follows the registry; a rubric error over HTTP is a
JSON error."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from syncgrade.courses import EXERCISES, RUBRIC_ERRORS, get_exercise
from syncgrade.rubric import RubricError, contract, registry, validate
from syncgrade.rubric import checks as c
from syncgrade.rubric import checks_report as rc
from syncgrade.rubric.base import CheckSpec, Exercise
from syncgrade.rubric.compose import all_of, on_intervals
from syncgrade.rubric.contract import Samples
from syncgrade.rubric.declaration import resolve_check
from syncgrade.rubric.ids import Check
from syncgrade.rubric.registry import FAMILIES, REGISTRY

ROOT = Path(__file__).resolve().parents[2]
BASE = get_exercise("exercise-1")
DECLARED = tuple(check for check in BASE.checks if check.id not in contract.TITLES)
"""exercise-1's own checks (``runs``, ``numpy-match``), without the derived ones."""


def with_checks(*checks: CheckSpec) -> Exercise:
    """exercise-1 with ``checks`` in place of its derived ones (so without its samples, and
    without the points it gives those derived checks: naming them would be an error)."""
    ids = {str(check.id) for check in (*DECLARED, *checks)}
    points = {key: value for key, value in BASE.points.items() if key in ids}
    return dataclasses.replace(BASE, checks=(*DECLARED, *checks), samples=(), points=points)


def with_samples(*samples: Samples) -> Exercise:
    return dataclasses.replace(BASE, checks=DECLARED, samples=samples)


def problem(exercise: Any) -> str:
    with pytest.raises(RubricError) as caught:
        validate(exercise)
    text = str(caught.value)
    assert text.startswith("rubric error in exercise-1: "), text
    assert "\n" not in text
    return text


# --------------------------------------------------------------------------- param types


def test_a_count_given_as_text_is_refused_naming_check_param_type_and_value() -> None:
    text = problem(with_checks(CheckSpec("sample-count", "", c.sample_count, 1, {
        "call": "main", "samples": (1,), "count": "5"})))
    assert "check 'sample-count' (sample_count): param 'count' must be int, not '5' (str)" \
        in text
    with pytest.raises(TypeError, match=r"count must be int, not '5' \(str\)"):
        Samples("main", (1,), "5")  # type: ignore[arg-type]
    assert "param 'count' must be int, not True (bool)" in problem(with_checks(CheckSpec(
        "sample-count", "", c.sample_count, 1, {"call": "main", "samples": (1,),
                                                "count": True})))


def test_a_count_declared_in_samples_is_refused_by_the_samples_not_a_derived_check() -> None:
    # Raised where the Samples is built (the loader then names the author's line:
    # tests/rubric/test_author_errors.py), never against a derived check.
    with pytest.raises(TypeError) as caught:
        Samples("main", (1,), "5")  # type: ignore[arg-type]
    assert str(caught.value) == "Samples('main', (1,)): count must be int, not '5' (str)"
    with pytest.raises(TypeError, match=re.escape("fn must be str | None, not 0 (int)")):
        Samples("main", (1,), 5, fn=0)  # type: ignore[arg-type]


def test_sample_paths_given_as_ints_are_refused() -> None:
    text = problem(with_checks(CheckSpec("sync-before-stop", "", c.sync_before_stop, 1, {
        "call": "main", "samples": 1})))
    assert ("check 'sync-before-stop' (sync_before_stop): param 'samples' must be "
            "tuple[str | int, ...] | None, not 1 (int)") in text
    # Declared in the measurement contract: the Samples says so where it is built.
    with pytest.raises(TypeError, match=r"path must be tuple\[str \| int, \.\.\.\], not 1"):
        Samples("main", 1, 6)  # type: ignore[arg-type]
    # A list is not a path either (strict), nor is a path with a float step.
    assert "param 'samples' must be tuple[str | int, ...] | None, not [1] (list)" in problem(
        with_checks(CheckSpec("sync-before-stop", "", c.sync_before_stop, 1,
                              {"call": "main", "samples": [1]})))
    assert "param 'result' must be tuple[str | int, ...], not (0.5,) (tuple) (at [0]" in \
        problem(with_checks(CheckSpec("shape", "", c.shape, 1, {
            "call": "main", "result": (0.5,), "reference": "predict"})))


def test_unknown_and_missing_params_name_check_and_param() -> None:
    text = problem(with_checks(CheckSpec("sample-count", "", c.sample_count, 1, {
        "call": "main", "samples": (1,), "count": 5, "repeats": 5})))
    assert "check 'sample-count' (sample_count): unknown param 'repeats' (it takes: call, " \
           "samples, count)" in text
    text = problem(with_checks(CheckSpec("sample-count", "", c.sample_count, 1, {
        "call": "main", "samples": (1,)})))
    assert "check 'sample-count' (sample_count): missing param 'count'" in text


def test_parts_of_combinators_are_type_checked_against_their_own_function() -> None:
    text = problem(with_checks(CheckSpec("covers-device-work", "", all_of, 1, {"parts": (
        ("", c.covers_device_work, {"call": "probe", "samples": (1,)}),
        ("twice", c.covers_device_work, {"call": "probe", "samples": (1,),
                                         "runs_per_sample": "2"}),
    )})))
    assert ("check 'covers-device-work' (all_of), part 2 (covers_device_work): param "
            "'runs_per_sample' must be int, not '2' (str)") in text
    select = rc.warm_intervals((1,), (2,))
    text = problem(with_checks(CheckSpec("sync-before-stop", "", on_intervals, 1, {
        "check": c.sync_before_stop, "call": "main", "select": select, "samples": 3})))
    assert ("check 'sync-before-stop' (on_intervals), the check it restricts "
            "(sync_before_stop): param 'samples' must be") in text
    text = problem(with_checks(CheckSpec("sync-before-stop", "", all_of, 1, {
        "parts": (("", c.sync_before_stop, {"call": "main"}),), "ok": 1})))
    assert "check 'sync-before-stop' (all_of): param 'ok' must be str, not 1 (int)" in text


def test_registered_params_have_types_from_the_functions() -> None:
    params = {p.name: p for p in REGISTRY["sample-count"].params}
    assert list(params) == ["call", "samples", "count"]
    assert params["count"].type is int and params["count"].required
    assert params["samples"].type_text == "tuple[str | int, ...]"
    covers = {p.name: p for p in REGISTRY["covers-device-work"].params}
    assert covers["fraction"].default == 0.35 and covers["fraction"].type is float
    for definition in [*REGISTRY.values(), *FAMILIES.values()]:
        for param in definition.params:
            # Every param of a registered check has a type validation can check.
            assert param.type is not Any, (definition.id, param.name)
            assert registry.type_adapter(param.type) is not None, (definition.id, param.name)
            if not param.required:  # and its default is of that type
                assert param.problem(param.default) is None, (definition.id, param.name)


# --------------------------------------------------------------------------- titles


def test_every_shipped_exercise_loads() -> None:
    assert RUBRIC_ERRORS == {}
    assert len(EXERCISES) >= 9
    for exercise in EXERCISES.values():
        validate(exercise)


def test_titles_are_the_registry_s() -> None:
    for check_id, title in contract.TITLES.items():
        assert title == REGISTRY[check_id].title
    for exercise in EXERCISES.values():
        for check in exercise.checks:
            if check.id in REGISTRY:
                assert check.title == REGISTRY[check.id].title, (exercise.id, check.id)
            else:
                assert registry.family_of(check.id) is not None, (exercise.id, check.id)
    titles = [d.title for d in REGISTRY.values()]
    assert len(set(titles)) == len(titles)
    for definition in REGISTRY.values():
        assert definition.decides.endswith(".") and definition.decides.count(". ") == 0


def test_a_drifted_title_is_refused_and_an_omitted_one_is_the_registry_s() -> None:
    text = problem(with_checks(CheckSpec("sample-count", "Sample counts", c.sample_count, 1,
                                         {"call": "main", "samples": (1,), "count": 6})))
    assert ("check 'sample-count': title 'Sample counts' is not the registered title "
            "'Sample count and units' of 'sample-count'") in text
    spec = CheckSpec(Check.SHAPE,
                     params={"call": "main", "result": (0,), "reference": "predict"})
    assert (spec.title, spec.fn) == ("", None)  # data until the loader resolves it
    resolved = resolve_check(spec)
    assert (resolved.id, type(resolved.id), resolved.title, resolved.fn) == (
        "shape", str, "Result shape", c.shape)
    assert validate(with_checks(spec)).checks[len(DECLARED)] == resolved
    # Titles declared before the registry load as the registry's.
    assert resolve_check(CheckSpec("shape", "Row-wise shape", c.shape)).title == "Result shape"


def own_check(ctx: Any, call: str) -> Any:
    """An author's own check function (not a registered one)."""
    raise AssertionError("never run here")


def test_unregistered_ids_need_their_own_title_and_function() -> None:
    own = CheckSpec("row-totals", "Row totals", own_check, 1, {"call": "main"})
    validate(with_checks(own))
    text = problem(with_checks(dataclasses.replace(own, title="")))
    assert "check 'row-totals': 'row-totals' is not a registered check id " \
           "(docs/checks.md): give it a title" in text
    text = problem(with_checks(CheckSpec("row-totals", "Row totals")))
    assert "give it a check function" in text
    # A registered check's own function under an unknown id is a misspelt id.
    text = problem(with_checks(CheckSpec("my-shape", "Shape", c.shape, 1,
                                         {"call": "main", "result": (0,)})))
    assert "check 'my-shape': unknown check id; did you mean `shape`?" in text
    assert "'answer-x' is an answer-<key> id: give it a title" in problem(with_checks(
        CheckSpec("answer-x", "", c.shape)))


# --------------------------------------------------------------------------- docs


def _docs_table() -> dict[str, str]:
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    section = text.split("\n## Checks\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    found = {}
    for row in rows:
        match = re.match(r"\| `([^`]+)` \| ([^|]+) \|", row)
        assert match, row
        found[match.group(1)] = match.group(2).strip()
    return found


def test_the_docs_table_lists_every_registered_check_with_its_title() -> None:
    table = _docs_table()
    for definition in REGISTRY.values():
        assert table.get(definition.id) == definition.title, definition.id
    families = {d.id for d in FAMILIES.values()}
    for check_id in table:
        assert check_id in REGISTRY or check_id in families, check_id
    assert families <= set(table)


# --------------------------------------------------------------------------- HTTP


def test_a_rubric_error_over_http_is_a_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvicorn")
    from service_support import GOOD, assert_error, post_json, thread_server

    error = RubricError("rubric error in exercise-1: check 'sample-count' (sample_count): "
                        "param 'count' must be int, not '5' (str)")
    monkeypatch.setitem(RUBRIC_ERRORS, "exercise-1", error)
    with thread_server() as port:
        message = assert_error(post_json(port, GOOD), 500, "rubric error in exercise-1",
                                "param 'count' must be int")
    assert message == str(error)
