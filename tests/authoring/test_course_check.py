"""A course adds a check of its own in its own files, with only the authoring façade
(issue 36): docs/authoring.md's example check, declared in an exercise of a course
outside the checkout, is validated as the course loads and graded like the library's
checks (passed, failed with its own message and hint, skipped)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import syncgrade
from syncgrade.courses import open_course

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = ROOT / "exercises" / "exercise-1"
SOLUTION = ROOT / "solutions" / "exercise-1" / "solution.py"
DOC = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
RUNS = 'CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (MAIN, PROBE)}),'


def doc_check() -> str:
    """The python block of docs/authoring.md, "Writing a check in your course"."""
    section = DOC.split("## Writing a check in your course", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def course_with(tmp_path: Path, checks: str) -> Path:
    """A course outside the checkout: exercise-1 with the doc's check defined in its
    ``exercise.py`` and ``checks`` added to its checks."""
    root = tmp_path / "course"
    folder = root / "exercise-1"
    shutil.copytree(EXERCISE, folder)
    shutil.copy(SOLUTION, folder / "solution.py")
    text = (folder / "exercise.py").read_text(encoding="utf-8")
    assert RUNS in text and "\nEXERCISE = Exercise(" in text
    text = text.replace("\nEXERCISE = Exercise(", f"\n{doc_check()}\n\nEXERCISE = Exercise(")
    (folder / "exercise.py").write_text(text.replace(RUNS, f"{RUNS}\n        {checks}"),
                                        encoding="utf-8")
    return root


def test_the_doc_s_check_imports_only_the_facade() -> None:
    assert "from syncgrade.rubric import CheckSpec, Context, Evidence, Outcome, Skip" \
        in doc_check()
    assert "syncgrade.rubric." not in doc_check()


def test_a_course_s_own_check_is_graded_like_the_library_s(tmp_path: Path) -> None:
    root = course_with(tmp_path, (
        'FEW_SAMPLES, '
        'CheckSpec("one-sample-only", "One sample", few_samples, 1, '
        '{"call": "main", "samples": (1,), "most": 1}), '
        'CheckSpec("no-such-list", "No such list", few_samples, 1, '
        '{"call": "main", "samples": (7,), "most": 1}),'))
    course = open_course(root)
    assert course.errors == {}
    report = syncgrade.grade("exercise-1", root / "exercise-1" / "solution.py", course=course)
    checks = {check.id: check for check in report.checks}
    assert checks["few-samples"].status == "passed"
    assert checks["few-samples"].message == "At most 10 samples."
    failed = checks["one-sample-only"]
    assert failed.status == "failed", failed
    assert re.fullmatch(r"You returned \d+ samples; the statement asks for at most 1\.",
                        failed.message), failed.message
    assert failed.hint.startswith("Return one sample per timed call, no more.")
    assert checks["no-such-list"].status == "skipped"
    # Everything else of the exercise is as the solution deserves.
    assert {i for i, c in checks.items() if c.status == "failed"} == {"one-sample-only"}


def test_a_course_s_own_check_is_validated_as_the_course_loads(tmp_path: Path) -> None:
    root = course_with(tmp_path, 'CheckSpec("few-samples", "Few", few_samples, 1, '
                                 '{"call": "main", "samples": (1,), "mots": 10}),')
    error = str(open_course(root).errors["exercise-1"])
    text = (root / "exercise-1" / "exercise.py").read_text().splitlines()
    line = next(n for n, ln in enumerate(text, 1) if '"mots": 10' in ln)
    assert error.startswith(f"rubric error in exercise-1: {root / 'exercise-1' / 'exercise.py'}"
                            f":{line}: check 'few-samples' (few_samples): unknown param "
                            "'mots'; did you mean `most`?"), error


@pytest.mark.parametrize("name", ["Outcome", "Skip", "Context", "Evidence", "Verdict",
                                  "intervals"])
def test_the_facade_exports_what_a_check_is_written_with(name: str) -> None:
    import syncgrade.rubric as facade

    assert name in facade.__all__ and getattr(facade, name) is not None
