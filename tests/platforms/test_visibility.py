"""Hidden checks: learners see pass/fail and a learner-safe hint in every output, never
what the check saw; ``--reveal`` shows everything; Gradescope keeps ``after_due_date``
whole for Gradescope itself to withhold."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from platform_support import make_check, make_report, secret_timeline

import syncgrade
from syncgrade import cli
from syncgrade.courses import EXERCISES, get_exercise
from syncgrade.models import GradeReport
from syncgrade.platforms import redact, safe_hint, to_gradescope
from syncgrade.platforms.output import OUTPUT_FORMATS, format_report
from syncgrade.platforms.visibility import HIDDEN_FAILED, HIDDEN_PASSED, SAFE_HINTS

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"
HIDDEN = "SECRET-HIDDEN-(4096, 37)"
LATER = "SECRET-AFTER-DUE-0.731"


def _report() -> GradeReport:
    return make_report(
        make_check("runs", "passed"),
        make_check("numpy-match", visibility="hidden", message=f"mismatch at {HIDDEN}",
                   hint=f"try {HIDDEN}", facts={"shape": HIDDEN},
                   timeline=secret_timeline(HIDDEN)),
        make_check("shape", "passed", visibility="hidden", message=f"shape {HIDDEN}"),
        make_check("sync-before-stop", visibility="after_due_date", message=LATER,
                   facts={"seconds": LATER}, timeline=secret_timeline(LATER)),
        make_check("sample-count", message="visible detail", hint="visible hint"))


def test_redact_keeps_verdicts_and_drops_details() -> None:
    report = _report()
    view = redact(report)
    GradeReport.model_validate_json(view.model_dump_json())  # still a valid report
    assert (view.status, view.cause, view.score, view.max_score) == (
        report.status, report.cause, report.score, report.max_score)
    hidden = view.check("numpy-match")
    assert (hidden.status, hidden.points, hidden.message) == ("failed", 0.0, HIDDEN_FAILED)
    assert hidden.hint == safe_hint("numpy-match") == SAFE_HINTS["numpy-match"]
    assert hidden.evidence.facts == {} and hidden.evidence.timeline is None
    assert view.check("shape").message == HIDDEN_PASSED and view.check("shape").hint == ""
    assert view.check("sync-before-stop").message == HIDDEN_FAILED
    assert view.check("sample-count") == report.check("sample-count")
    assert HIDDEN not in view.model_dump_json() and LATER not in view.model_dump_json()
    assert redact(view) == view
    visible_only = make_report(make_check("runs"))
    assert redact(visible_only) is visible_only


def test_no_learner_facing_format_leaks_a_hidden_check() -> None:
    report = _report()
    for fmt in OUTPUT_FORMATS:
        text = format_report(report, fmt, source_lines=["a"] * 10)
        assert HIDDEN not in text, fmt
        assert "visible detail" in text and "visible hint" in text, fmt
        assert safe_hint("numpy-match") in " ".join(text.split()), fmt  # text wraps it
        if fmt != "gradescope":
            assert LATER not in text, fmt


def test_gradescope_withholds_after_due_date_natively() -> None:
    tests = {t["name"].split(":")[0]: t for t in to_gradescope(_report())["tests"]}
    assert tests["sync-before-stop"]["visibility"] == "after_due_date"
    assert LATER in tests["sync-before-stop"]["output"]  # shown once the deadline passed
    # hidden checks keep their points in the learner's view, so they are Gradescope-visible
    assert tests["numpy-match"]["visibility"] == "visible"
    assert tests["numpy-match"]["output"].startswith(HIDDEN_FAILED)
    assert LATER not in to_gradescope(_report())["output"]  # the top level is always shown
    revealed = {t["name"].split(":")[0]: t for t in to_gradescope(_report(),
                                                                  reveal=True)["tests"]}
    assert revealed["numpy-match"]["visibility"] == "hidden"
    assert HIDDEN in revealed["numpy-match"]["output"]


def _with_later(status: str) -> GradeReport:
    """_report() with its after_due_date check passed or failed; nothing else differs."""
    checks = [make_check(c.id, status if c.visibility == "after_due_date" else c.status,
                         visibility=c.visibility, message=c.message, hint=c.hint,
                         points=c.max_points) for c in _report().checks]
    return make_report(*checks)


@pytest.mark.parametrize("html", [False, True])
def test_gradescope_top_level_never_reveals_an_after_due_date_check(html: bool) -> None:
    """Gradescope always shows the top-level output, and withholds the total itself while
    an after_due_date test is withheld: the output names no such check, gives no total,
    and reads the same whether that check passed or failed."""
    failed, passed = (to_gradescope(_with_later(s), html=html) for s in ("failed", "passed"))
    assert failed["output"] == passed["output"]
    report = _with_later("failed")
    out = failed["output"]
    assert "sync-before-stop" not in out and LATER not in out
    assert f"{report.score:g}/{report.max_score:g}" not in out
    shown = [c for c in report.checks if c.visibility != "after_due_date"]
    assert (f"checks shown now: {sum(c.points for c in shown):g}/"
            f"{sum(c.max_points for c in shown):g} points") in out
    assert "not yet passed: numpy-match, sample-count" in out
    assert "1 more check (1 point) is shown after the due date, with your total" in out
    assert failed["visibility"] == "after_due_date"
    assert {t["name"].split(":")[0]: t["visibility"] for t in failed["tests"]} == {
        "runs": "visible", "numpy-match": "visible", "shape": "visible",
        "sync-before-stop": "after_due_date", "sample-count": "visible"}
    without = make_report(make_check("runs", "passed"), make_check("shape"))
    assert "visibility" not in to_gradescope(without)  # nothing withheld: as before
    assert "score 1/2" in to_gradescope(without)["output"]
    revealed = to_gradescope(report, reveal=True)  # staff: the whole story
    assert f"score {report.score:g}/{report.max_score:g}" in revealed["output"]
    assert "visibility" not in revealed


@pytest.mark.parametrize("html", [False, True])
def test_the_learners_stderr_does_not_tell_a_withheld_check_failed(html: bool) -> None:
    """Every shown check passed and the code wrote to stderr: the top-level output reads
    the same whether the after_due_date check passed or failed (stderr is shown for a
    failed report, so its presence alone would tell)."""
    def report(later: str) -> GradeReport:
        return make_report(make_check("runs", "passed"),
                           make_check("sync-before-stop", later, visibility="after_due_date"),
                           status="failed" if later == "failed" else "passed",
                           stderr="a warning the code printed\n")

    failed, passed = (to_gradescope(report(s), html=html)["output"]
                      for s in ("failed", "passed"))
    assert failed == passed and "a warning the code printed" not in failed
    shown_failure = make_report(make_check("runs"), make_check(
        "sync-before-stop", visibility="after_due_date"), stderr="a warning the code printed\n")
    assert "a warning the code printed" in to_gradescope(shown_failure, html=html)["output"]


def test_reveal_shows_everything_in_every_format() -> None:
    for fmt in OUTPUT_FORMATS:
        text = format_report(_report(), fmt, reveal=True)
        assert HIDDEN in text and LATER in text, fmt


def test_a_summary_that_quotes_a_hidden_check_is_replaced() -> None:
    runs = make_check("runs", visibility="hidden", message=f"your code hit {HIDDEN}")
    report = make_report(runs, make_check("shape", "skipped"), cause="timeout",
                         summary=f"your code hit {HIDDEN}")
    view = redact(report)
    assert HIDDEN not in view.summary and view.summary == "1 check(s) failed: runs."


def test_every_public_check_id_has_its_own_safe_hint() -> None:
    ids = {c.id for e in EXERCISES.values() for c in e.checks}
    generic = {i for i in ids if not i.startswith("answer-") and i not in SAFE_HINTS}
    assert generic == set()


@pytest.fixture
def hidden_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    """exercise-1 with `sync-before-stop` hidden: a rubric override, as an instructor
    would make one (no shipped check is hidden: each one's message and the learner's
    interval are the lesson)."""
    exercise = get_exercise("exercise-1")
    specs = tuple(dataclasses.replace(s, visibility="hidden") if s.id == "sync-before-stop"
                  else s for s in exercise.checks)
    monkeypatch.setitem(EXERCISES, "exercise-1", dataclasses.replace(exercise, checks=specs))


def test_a_hidden_rubric_check_through_the_engine_and_the_cli(
        hidden_sync: None, capsys: pytest.CaptureFixture[str]) -> None:
    report = syncgrade.grade("exercise-1", NO_WAIT)
    sync = report.check("sync-before-stop")
    assert sync.visibility == "hidden" and sync.status == "failed"
    secret = sync.message  # the full message: for instructors only
    assert secret not in (HIDDEN_FAILED, "") and sync.evidence.timeline is not None

    assert cli.main(["exercise-1", str(NO_WAIT)]) == cli.EXIT_NOT_FULL
    learner = capsys.readouterr().out
    # The terminal view wraps its columns: compare the words, not the line breaks.
    assert "sync-before-stop (hidden)" in learner
    assert HIDDEN_FAILED in " ".join(learner.split())
    assert secret not in learner and safe_hint("sync-before-stop") in " ".join(
        learner.split())
    assert cli.main(["exercise-1", str(NO_WAIT), "--json"]) == cli.EXIT_NOT_FULL
    as_json = GradeReport.model_validate_json(capsys.readouterr().out)
    assert as_json.check("sync-before-stop").message == HIDDEN_FAILED
    assert cli.main(["exercise-1", str(NO_WAIT), "--format", "gradescope",
                     "--reveal"]) == cli.EXIT_NOT_FULL
    staff = json.loads(capsys.readouterr().out)
    # The full message, for staff. This is another grade of the same file: which interval
    # it names, and whether that interval's output was still running at its stop read, is
    # a race in a loop that never waits; the rest of the message is not.
    revealed = json.dumps(staff, ensure_ascii=False)
    ending = secret.rsplit(";", 1)[-1]
    assert ending.strip() and ending in revealed and "In interval" in revealed
