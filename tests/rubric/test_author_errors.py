"""An author's mistake in a declaration is reported against the author's own file and
line, as the course loader opens the course, and an unknown check id suggests the right
one (issue 28). No grade runs here: each case is exercise-1's declaration, edited, loaded
from a course folder of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncgrade.courses import open_course
from syncgrade.rubric import Check, RubricError
from syncgrade.rubric.registry import REGISTRY

DECLARATION = open_course().folder("exercise-1").declaration.read_text(encoding="utf-8")


def load(tmp_path: Path, *edits: tuple[str, str], folder: str = "exercise-1"
         ) -> tuple[str, Path, str]:
    """The error text of exercise-1's declaration with ``edits`` (old, new) applied, its
    path and the edited text."""
    text = DECLARATION
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / folder / "exercise.py"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    course = open_course(tmp_path)
    return str(course.errors.get(folder, "")), path, text


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_the_typed_ids_are_the_registered_ones() -> None:
    assert {check.value for check in Check} == set(REGISTRY)
    assert Check.NUMPY_MATCH == "numpy-match"


@pytest.mark.parametrize("declared", [
    'CheckSpec("numpy-macth", "Matches NumPy", c.numpy_match, 1,',  # with a title
    'CheckSpec("numpy-macth", "", None, 1,',  # without a title or function
])
def test_a_misspelt_check_id_names_the_line_and_the_right_id(tmp_path: Path,
                                                             declared: str) -> None:
    error, path, text = load(tmp_path, (
        'CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,', declared))
    line = line_of(text, "numpy-macth")
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: check 'numpy-macth'"
                            ": unknown check id; did you mean `numpy-match`?"), error


def test_samples_of_the_wrong_type_are_reported_on_the_samples_line(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ("REPEATS = 6", 'REPEATS = "6"'))
    line = line_of(text, "Samples(MAIN, SAMPLES, REPEATS)")
    assert f"{path} failed to import (line {line}): TypeError: Samples('main', (1,)): " \
           "count must be int, not '6' (str)" in error, error
    assert "sample-count" not in error and "all_of" not in error
    error, path, text = load(tmp_path / "fn", ("Samples(MAIN, SAMPLES, REPEATS)",
                                               "Samples(MAIN, SAMPLES, REPEATS, fn=0)"))
    line = line_of(text, "fn=0")
    assert f"(line {line}): TypeError: Samples('main', (1,)): fn must be str | None, " \
           "not 0 (int)" in error, error


def test_static_argnums_takes_an_int_like_jax_and_names_itself_otherwise(
        tmp_path: Path) -> None:
    from syncgrade.rubric import specs as s

    assert s.workload("f", source="def f(x, n):\n    return x\n",
                      static_argnums=1)["static_argnums"] == [1]
    error, _, text = load(tmp_path, ('s.workload("predict", warm=',
                                        's.workload("predict", static_argnums="1", warm='))
    line = line_of(text, 'static_argnums="1"')
    assert f"(line {line}): TypeError: static_argnums must be an int or a sequence of ints" \
           in error, error


def test_a_crashing_make_references_shows_the_author_s_traceback(tmp_path: Path) -> None:
    root = tmp_path / "course"
    root.mkdir()
    _, path, text = load(root, ('    return {"predict": tolerance.tanh_matmul',
                                '    return {"predict": 1 / 0 + tolerance.tanh_matmul'))
    with pytest.raises(RubricError) as caught:
        open_course(root).get("exercise-1")
    first, *rest = str(caught.value).splitlines()
    line = line_of(text, "1 / 0")
    assert first == (f"rubric error in exercise-1: {path}:{line}: make_references() raised "
                     "ZeroDivisionError: division by zero")
    shown = "\n".join(rest)
    assert f'File "{path}", line {line}, in make_references' in shown
    assert "validation.py" not in shown  # the author's frames, not the grader's


def test_an_id_that_is_not_its_folder_s_says_folder(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ('id="exercise-1"', 'id="exercise-7"'))
    line = line_of(text, "EXERCISE = Exercise(")
    assert error == (f"rubric error in exercise-1: {path}:{line}: id 'exercise-7' does not "
                     "match its folder (expected 'exercise-1', the folder's name)")


def test_a_hint_for_no_check_of_the_exercise_names_the_line_and_the_right_id(
        tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ("hints={Check.RUNS:", 'hints={"rnus":'))
    line = line_of(text, "EXERCISE = Exercise(")
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: hints names "
                            "['rnus'], which is not a check of this exercise; did you mean "
                            "`runs`?"), error


def test_an_empty_hint_is_a_rubric_error(tmp_path: Path) -> None:
    # `"  " or "..."` is the blank string: the declared text is left in place, unused.
    error, path, text = load(tmp_path, ("hints={Check.RUNS:", 'hints={Check.RUNS: "  " or'))
    line = line_of(text, "EXERCISE = Exercise(")
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: hints['runs'] must "
                            "be a non-empty string"), error
