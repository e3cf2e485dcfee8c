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
    assert f"{path}:{line}: failed to import: TypeError: Samples('main', (1,)): " \
           "count must be int, not '6' (str)" in error, error
    assert "sample-count" not in error and "all_of" not in error
    error, path, text = load(tmp_path / "fn", ("Samples(MAIN, SAMPLES, REPEATS)",
                                               "Samples(MAIN, SAMPLES, REPEATS, fn=0)"))
    line = line_of(text, "fn=0")
    assert f"{path}:{line}: failed to import: TypeError: Samples('main', (1,)): fn must be "\
           "str | None, not 0 (int)" in error, error


def test_static_argnums_takes_an_int_like_jax_and_names_itself_otherwise(
        tmp_path: Path) -> None:
    from syncgrade.rubric import specs as s

    assert s.workload("f", source="def f(x, n):\n    return x\n",
                      static_argnums=1)["static_argnums"] == [1]
    error, _, text = load(tmp_path, ('s.workload("predict", warm=',
                                        's.workload("predict", static_argnums="1", warm='))
    line = line_of(text, 'static_argnums="1"')
    assert f":{line}: failed to import: TypeError: static_argnums must be an int or a " \
           "sequence of ints" in error, error


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
    line = line_of(text, 'hints={"rnus":')  # the key's own line, not Exercise('s
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: hints names "
                            "['rnus'], which is not a check of this exercise; did you mean "
                            "`runs`?"), error


def test_an_empty_hint_is_a_rubric_error(tmp_path: Path) -> None:
    # `"  " or "..."` is the blank string: the declared text is left in place, unused.
    error, path, text = load(tmp_path, ("hints={Check.RUNS:", 'hints={Check.RUNS: "  " or'))
    line = line_of(text, 'hints={Check.RUNS: "  " or')
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: hints['runs'] must "
                            "be a non-empty string"), error


# ----------------------------------------------------------------- issue 36: every rubric
# error at the author's file:line, with a did-you-mean

MAIN_CALL = 'GraderCall(MAIN, "synchronized_samples", ('


def data_error(tmp_path: Path, *edits: tuple[str, str]) -> tuple[str, Path, str]:
    """As :func:`load`, for a mistake found when the exercise's data is first checked
    (hidden-input names and reference keys: ``Course.get``)."""
    error, path, text = load(tmp_path, *edits)
    assert error == "", error  # the declaration's shape is right
    with pytest.raises(RubricError) as caught:
        open_course(tmp_path).get("exercise-1")
    return str(caught.value), path, text


def test_a_misspelt_workload_names_its_call_s_line_and_the_right_name(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ('s.workload("predict", warm=',
                                        's.workload("predcit", warm='))
    assert error.startswith(f"rubric error in exercise-1: {path}:{line_of(text, MAIN_CALL)}: "
                            "call 'main', argument 1: unknown workload 'predcit'; did you "
                            "mean `predict`?"), error


def test_a_misspelt_hidden_input_names_its_call_s_line_and_the_right_name(
        tmp_path: Path) -> None:
    error, path, text = data_error(tmp_path, ('s.tuple_of(s.device("x"), s.device("w"))',
                                              's.tuple_of(s.device("x"), s.device("ww"))'))
    assert error == (f"rubric error in exercise-1: {path}:{line_of(text, MAIN_CALL)}: call "
                     "'main': no hidden input named 'ww'; did you mean `w`? (make_inputs() "
                     "gives: w, x)")


def test_a_misspelt_reference_key_names_its_check_s_line_and_the_right_key(
        tmp_path: Path) -> None:
    error, path, text = data_error(tmp_path, ('"reference": "predict"',
                                              '"reference": "predcit"'))
    line = line_of(text, "CheckSpec(Check.NUMPY_MATCH")
    assert error == (f"rubric error in exercise-1: {path}:{line}: check 'numpy-match' "
                     "(numpy_match): param reference='predcit' is not a key of "
                     "make_references(); did you mean `predict`? (it gives: predict)")


def test_a_misspelt_typed_id_keeps_python_s_did_you_mean(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ("CheckSpec(Check.NUMPY_MATCH,",
                                        "CheckSpec(Check.NUMPY_MACTH,"))
    line = line_of(text, "Check.NUMPY_MACTH")
    assert error == (f"rubric error in exercise-1: {path}:{line}: failed to import: "
                     "AttributeError: NUMPY_MACTH. Did you mean: 'NUMPY_MATCH'?")


@pytest.mark.parametrize(("old", "new", "says"), [
    ('points={"sync-before-stop": 2,', 'points={"sync-before-stpo": 2,',
     "points names ['sync-before-stpo'], which is not a check of this exercise; did you "
     "mean `sync-before-stop`?"),
    ('points={"sync-before-stop": 2,', 'points={"sync-before-stop": -2,',
     "points['sync-before-stop'] must be a number > 0, not -2"),
    ('points={"sync-before-stop": 2,', 'visibility={"sync-before-stop": "hiden"},\n'
     '    points={"sync-before-stop": 2,',
     "visibility['sync-before-stop']: 'hiden' is not one of ['after_due_date', 'hidden', "
     "'visible']; did you mean `hidden`?"),
])
def test_a_points_or_visibility_mistake_names_its_own_line(tmp_path: Path, old: str, new: str,
                                                          says: str) -> None:
    error, path, text = load(tmp_path, (old, new))
    line = line_of(text, new.splitlines()[0])  # the key's own line, not Exercise('s
    assert line != line_of(text, "EXERCISE = Exercise(")
    assert error.startswith(f"rubric error in exercise-1: {path}:{line}: {says}"), error


def test_a_check_s_visibility_and_param_typos_get_the_right_word(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ('{"calls": (MAIN, PROBE)}',
                                        '{"calls": (MAIN, PROBE)}, visibility="hiden"'))
    assert f"{path}:{line_of(text, 'CheckSpec(Check.RUNS')}: check 'runs': visibility 'hiden' " \
           "is not one of" in error and error.endswith("; did you mean `hidden`?"), error
    error, _, text = load(tmp_path / "param", ('"result": RESULT', '"reslut": RESULT'))
    assert f":{line_of(text, 'CheckSpec(Check.NUMPY_MATCH')}: check 'numpy-match' " \
           "(numpy_match): unknown param 'reslut'; did you mean `result`?" in error, error


@pytest.mark.parametrize(("old", "new", "says"), [
    # The samples time static values; the workload the grader hands over has none.
    ("Samples(MAIN, SAMPLES, REPEATS)", "Samples(MAIN, SAMPLES, REPEATS, static=(2,))",
     "the samples time static values (static=...) but the workload has no static "
     "argument; did you mean to give it static_argnums=..."),
    # The samples judge donation; the workload donates nothing.
    ("Samples(MAIN, SAMPLES, REPEATS)", "Samples(MAIN, SAMPLES, REPEATS, donates=True)",
     "donates=True but the workload donates no input; did you mean to give it "
     "donate_argnums=..."),
    # The workload donates; the samples do not say so.
    ('s.workload("predict", warm=', 's.workload("predict", donate_argnums=0, warm=',
     "the workload donates its input but the samples do not say so; did you mean "
     "donates=True"),
])
def test_static_and_donated_arguments_disagreeing_with_the_samples_are_the_author_s(
        tmp_path: Path, old: str, new: str, says: str) -> None:
    error, path, text = load(tmp_path, (old, new))
    line = line_of(text, "Samples(MAIN, SAMPLES, REPEATS")
    assert error.startswith(
        f"rubric error in exercise-1: {path}:{line}: Samples('main', (1,)) and the workload "
        f"`predict` of call 'main': {says}"), error


@pytest.mark.parametrize(("old", "new", "says"), [
    ('CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, 1,',
     'CheckSpec(Check.NUMPY_MATCH, "Matches NumPy", c.numpy_match, pionts=1, params=',
     "TypeError: CheckSpec.__init__() got an unexpected keyword argument 'pionts'. Did you "
     "mean: 'points'?"),
    ('s.workload("predict", warm=', 's.workload("predict", statc_argnums=(), warm=',
     "TypeError: workload() got an unexpected keyword argument 'statc_argnums'. Did you "
     "mean: 'static_argnums'?"),
    ("    make_references=make_references,", "    make_references=make_refrences,",
     "NameError: name 'make_refrences' is not defined. Did you mean: 'make_references'?"),
])
def test_a_misspelt_keyword_or_name_keeps_python_s_did_you_mean(
        tmp_path: Path, old: str, new: str, says: str) -> None:
    error, path, text = load(tmp_path, (old, new))
    assert error == (f"rubric error in exercise-1: {path}:{line_of(text, new)}: failed to "
                     f"import: {says}")


def test_samples_of_no_grader_call_are_reported_on_their_line(tmp_path: Path) -> None:
    error, path, text = load(tmp_path, ("Samples(MAIN, SAMPLES, REPEATS)",
                                        'Samples("mian", SAMPLES, REPEATS)'))
    line = line_of(text, 'Samples("mian"')
    assert error == (f"rubric error in exercise-1: {path}:{line}: "
                     "Samples('mian', (1,)): 'mian' is not a grader call; did you mean "
                     "`main`? (calls: main, probe)")
