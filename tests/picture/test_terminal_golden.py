"""Golden terminal transcripts of real reports at 60, 80 and 120 columns.

Each report in ``tests/picture/terminal_golden/*.json`` was graded from a submission of the
built-in course (``make_reports.py`` there, with the submission's source kept beside it);
its terminal view at each width is compared with ``<name>-<width>.txt``. No line may be
longer than the width. A deliberate change of the rendering or of what a check says shows
as a diff of the transcripts: review it, then rewrite them with
``SYNCGRADE_UPDATE_GOLDEN=1 pytest tests/picture/test_terminal_golden.py``.

One live test grades a few of the same submissions again and checks that the stored
reports still have the verdicts the grader gives now, and that the live view fits too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import syncgrade
from syncgrade.courses import BUILTIN_ROOT
from syncgrade.models import GradeReport
from syncgrade.render import leads, render

HERE = Path(__file__).parent / "terminal_golden"
COURSE = BUILTIN_ROOT  # stored submissions are named relative to it
WIDTHS = (60, 80, 120)
NAMES = sorted(p.stem for p in HERE.glob("*.json"))
UPDATE = os.environ.get("SYNCGRADE_UPDATE_GOLDEN") == "1"


def _stored(name: str) -> tuple[GradeReport, list[str]]:
    stored = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return GradeReport.model_validate(stored["report"]), stored["source"].splitlines()


def test_the_golden_reports_cover_what_the_issue_names() -> None:
    assert {"exercise-1-stub", "exercise-1-solution", "exercise-2-forgets-compilation",
            "exercise-6-stub", "exercise-7-warm-without-warmup"} <= set(NAMES)
    statuses = {_stored(name)[0].status for name in NAMES}
    assert statuses == {"passed", "failed"}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", NAMES)
def test_a_real_report_in_the_terminal(name: str, width: int) -> None:
    report, source = _stored(name)
    text = render(report, source, width=width)
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert not too_long, "\n".join(too_long)
    golden = HERE / f"{name}-{width}.txt"
    if UPDATE or not golden.exists():
        golden.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{golden.name} was missing and has been written: review it")
    assert text == golden.read_text(encoding="utf-8")


def test_a_missing_warm_up_reads_as_one_mistake() -> None:
    report, source = _stored("exercise-6-no-warmup")
    assert leads(report) == {"boundary-matches": ["warmup-excluded"]}
    text = " ".join(render(report, source, width=80).split())
    assert "Because of `warmup-excluded` above: fixing that fixes this too" in text
    assert "Declare the phases your interval really contains" not in text
    assert text.index("✗ warmup-excluded") < text.index("✗ boundary-matches")


@pytest.mark.parametrize("name", ["exercise-1-stub", "exercise-6-no-warmup",
                                  "exercise-7-warm-without-warmup"])
def test_the_stored_reports_still_have_todays_verdicts(name: str) -> None:
    stored, source = _stored(name)
    exercise = stored.exercise
    live = syncgrade.grade(exercise, COURSE / stored.submission, timeout=120,
                           display_name=stored.submission)
    assert [(c.id, c.status) for c in live.checks] == [
        (c.id, c.status) for c in stored.checks]
    assert (live.score, live.max_score) == (stored.score, stored.max_score)
    for width in (40, *WIDTHS):
        assert max(len(line) for line in render(live, source, width=width).splitlines()
                   ) <= width


def test_no_stored_message_uses_set_notation() -> None:
    for name in NAMES:
        report, _ = _stored(name)
        for check in report.checks:
            words = check.message + check.hint
            assert "{'" not in words and "'}" not in words, (name, check.id)
