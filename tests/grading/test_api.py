"""The Python API's contract: a file is a Path, text is source=, a str path is refused, usage
errors raise the exported exceptions, display_name is the only name learners see, and
concurrent calls from threads each get their own, right report."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import syncgrade
from syncgrade import courses, grading, rubric
from syncgrade.grading.hidden import hidden_data
from syncgrade.models import GradeReport

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"


def test_the_exceptions_are_exported() -> None:
    assert {"grade", "GradeReport", "RubricError", "SubmissionError", "UnknownExercise"} <= set(
        syncgrade.__all__)
    assert syncgrade.SubmissionError is grading.SubmissionError
    assert syncgrade.UnknownExercise is rubric.UnknownExercise
    assert syncgrade.RubricError is rubric.RubricError
    assert syncgrade.GradeReport is GradeReport


def test_a_str_path_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"pathlib\.Path.*source="):
        syncgrade.grade("exercise-1", str(SOLUTION))  # type: ignore[arg-type]


def test_source_must_be_text() -> None:
    with pytest.raises(TypeError, match="source= must be a str"):
        syncgrade.grade("exercise-1", source=SOLUTION.read_bytes())  # type: ignore[arg-type]


def test_a_missing_path_is_a_submission_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.py"
    with pytest.raises(syncgrade.SubmissionError, match="no such file"):
        syncgrade.grade("exercise-1", missing)
    with pytest.raises(syncgrade.SubmissionError):
        syncgrade.grade("exercise-1", tmp_path)  # a folder is not a submission


def test_exactly_one_of_path_and_source(tmp_path: Path) -> None:
    with pytest.raises(syncgrade.SubmissionError, match="exactly one"):
        syncgrade.grade("exercise-1")
    with pytest.raises(syncgrade.SubmissionError, match="exactly one"):
        syncgrade.grade("exercise-1", SOLUTION, source="x = 1\n")


def test_an_unknown_exercise_raises_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(syncgrade.UnknownExercise, match=r"exercise-99.*exercise-1"):
        syncgrade.grade("exercise-99", source="x = 1\n")
    with pytest.raises(syncgrade.UnknownExercise):
        syncgrade.grade("exercise-99", tmp_path / "missing.py")
    assert issubclass(syncgrade.UnknownExercise, LookupError)


@pytest.mark.parametrize("limits", [
    {"timeout": 0}, {"timeout": -1.0}, {"timeout": math.nan}, {"timeout": math.inf},
    {"timeout": 3601}, {"memory_bytes": 0}, {"memory_bytes": -(4 << 30)},
    {"memory_bytes": math.nan}, {"memory_bytes": math.inf}, {"memory_bytes": (1 << 40) + 1},
])
def test_bad_limits_are_a_value_error_before_anything_runs(
        monkeypatch: pytest.MonkeyPatch, limits: dict[str, float]) -> None:
    def no_child(*args: object, **kwargs: object) -> None:
        raise AssertionError("a child was started")

    monkeypatch.setattr("syncgrade.grading.pipeline.run_child", no_child)
    name = next(iter(limits))
    with pytest.raises(ValueError, match=rf"{name} must be a number of .* above 0 and at "
                                         "most") as info:
        syncgrade.grade("exercise-1", source="x = 1\n",
                        **limits)  # type: ignore[arg-type]  # mypy matches it to `path`
    assert type(info.value) is ValueError  # not a SubmissionError: the caller's limit
    with pytest.raises(TypeError, match="timeout must be a number"):
        syncgrade.grade("exercise-1", source="x = 1\n", timeout="60")  # options are Any here
    for doc in (grading.grade.__doc__, syncgrade.__doc__):
        assert doc is not None and "ValueError" in doc


def test_the_default_display_names(tmp_path: Path) -> None:
    """Without display_name a file is shown as the path given, source as submission.py
    (empty submissions: no child is run)."""
    empty = tmp_path / "empty.py"
    empty.write_text("")
    assert syncgrade.grade("exercise-1", empty).submission == str(empty)
    assert syncgrade.grade("exercise-1", source="").submission == "submission.py"
    named = syncgrade.grade("exercise-1", empty, display_name="mine.py")
    assert named.submission == "mine.py" and str(tmp_path) not in named.model_dump_json()


def test_concurrent_grades_are_explicit_and_keep_platform_paths_private(
        tmp_path: Path) -> None:
    """Three grades at once from threads: a flawed file under a platform-looking path
    (which prints its own __file__) shown as submission.py; the solution's text as
    source=; and a string that names a file, given as source=, which is graded as the
    Python it is rather than read."""
    upload = tmp_path / "platform-uploads" / "job-7731" / "upload.py"
    upload.parent.mkdir(parents=True)
    upload.write_text("print('loaded from', __file__)\n" + NO_WAIT.read_text())
    path_text = str(SOLUTION.relative_to(ROOT))
    with ThreadPoolExecutor(max_workers=3) as pool:
        flawed_job = pool.submit(syncgrade.grade, "exercise-1", upload,
                                 display_name="submission.py")
        solution_job = pool.submit(syncgrade.grade, "exercise-1",
                                   source=SOLUTION.read_text())
        path_as_source_job = pool.submit(syncgrade.grade, "exercise-1", source=path_text)
        flawed, solution, path_as_source = (
            flawed_job.result(), solution_job.result(), path_as_source_job.result())

    assert flawed.status == "failed" and flawed.cause == "graded"
    assert {c.id for c in flawed.checks if c.status == "failed"} == {
        "sync-before-stop", "covers-device-work"}
    assert "loaded from" in flawed.stdout.text
    text = flawed.model_dump_json()
    for secret in (str(tmp_path), "platform-uploads", "job-7731", "upload.py"):
        assert secret not in text, f"{secret!r} reached the report"
    assert flawed.submission == "submission.py"
    timelines = [c.evidence.timeline for c in flawed.checks if c.evidence.timeline]
    assert timelines and all(t.file == "submission.py" for t in timelines)

    assert (solution.status, solution.score) == ("passed", solution.max_score)
    assert solution.submission == "submission.py"

    assert path_as_source.status == "failed" and path_as_source.check("runs").status == "failed"
    assert json.loads(path_as_source.model_dump_json())["submission"] == "submission.py"


def test_hidden_data_is_made_once_per_exercise_and_cannot_be_written() -> None:
    import dataclasses

    import numpy as np

    exercise = courses.get_exercise("exercise-1")
    hidden = hidden_data(exercise)
    inputs, references = hidden.inputs, hidden.references
    again = hidden_data(exercise)
    assert again.inputs is inputs and again.references is references
    assert again.npz is hidden.npz
    assert all(not a.flags.writeable for a in inputs.values())
    with pytest.raises(ValueError):
        inputs["x"][0, 0] = 1.0
    fresh = {"x": np.zeros(3, np.float32)}
    replaced = dataclasses.replace(exercise, make_inputs=lambda: fresh)
    other = hidden_data(replaced).inputs
    assert other is fresh  # replaced inputs are never served from another's entry
