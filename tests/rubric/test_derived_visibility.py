"""Exercise(visibility=...): a course withholds a derived interval check (issue 28: the
derived checks are not in a declaration's ``checks``, so overriding those alone missed
them; found by tests/service/test_service_visibility.py)."""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any

import pytest

from syncgrade.courses import builtin_course
from syncgrade.rubric import RubricError
from syncgrade.rubric.declaration import resolve
from syncgrade.rubric.validation import validate_declaration


def _declaration() -> Any:
    """exercise-1's EXERCISE as its file declares it, before the loader resolves it."""
    path = builtin_course().folder("exercise-1").declaration
    spec = importlib.util.spec_from_file_location("_exercise_1_declaration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXERCISE


def test_a_derived_check_takes_the_visibility_the_exercise_gives_it() -> None:
    declared = dataclasses.replace(_declaration(),
                                   visibility={"sync-before-stop": "after_due_date"})
    shown = {c.id: c.visibility for c in resolve(declared).checks}
    assert shown["sync-before-stop"] == "after_due_date"
    assert shown["covers-device-work"] == "visible"  # the default, for the others


@pytest.mark.parametrize("field", ["visibility", "points"])
def test_a_mapping_naming_no_check_of_the_exercise_is_a_rubric_error(field: str) -> None:
    value = "hidden" if field == "visibility" else 2
    declared = dataclasses.replace(_declaration(), **{field: {"sync-befor-stop": value}})
    with pytest.raises(RubricError, match=f"{field} names \\['sync-befor-stop'\\]"):
        validate_declaration(declared, "exercise-1")
