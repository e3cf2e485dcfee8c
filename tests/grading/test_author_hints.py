"""An author's per-check hint (``Exercise(hints={Check.RUNS: ...})``, issue 28) is said
after the check's own hint when that check fails, in every view of the report (text, HTML,
JSON), and never in place of its message. One grade: exercise-1's corpus file that raises
(``runs`` fails). That the hint is absent when ``runs`` passes is asserted on the grade of
tests/grading/test_graded_lines.py; a typo in a hint's id: tests/rubric/test_author_errors.py."""

from __future__ import annotations

import html
import json

import pytest

import syncgrade
from syncgrade.courses import open_course
from syncgrade.models import GradeReport


def _hint(exercise_id: str, check_id: str) -> str:
    """The author's hint for ``check_id``, as the course declares it."""
    exercise = open_course().get(exercise_id)
    return next(spec.hint for spec in exercise.checks if spec.id == check_id)


@pytest.fixture(scope="module")
def raised() -> GradeReport:
    path = open_course().folder("exercise-1").corpus / "flawed" / "raises.py"
    return syncgrade.grade("exercise-1", path, display_name="submission.py")


def test_the_authors_hint_follows_the_checks_own_when_runs_fails(raised: GradeReport) -> None:
    from syncgrade.picture import render_html
    from syncgrade.render import render

    hint = _hint("exercise-1", "runs")
    assert hint and "(out, samples)" in hint
    runs = raised.check("runs")
    assert runs.status == "failed"
    assert runs.hint.endswith(hint) and runs.hint != hint  # the check's own comes first
    assert hint not in runs.message and "NameError" in runs.message  # never replacing it
    assert json.loads(raised.model_dump_json())["checks"][0]["hint"].endswith(hint)
    assert " ".join(render(raised, width=400).split()).count(hint) == 1
    assert html.escape(hint, quote=False) in render_html(raised)
    # Only the failing check: the others, not checked, carry no hint of the author's.
    assert all(hint not in check.hint for check in raised.checks if check.id != "runs")


def test_a_second_exercise_declares_what_its_function_returns() -> None:
    assert "(out, samples)" in _hint("exercise-3", "runs")
