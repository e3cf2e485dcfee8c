"""The platform result formats against each platform's documented field set, for every
kind of outcome: full marks, partial, syntax error, timeout, unreadable, tampered and a
grader fault. Reports come from real grades (the grader fault from a sandbox that cannot
start), so a change in what the engine reports shows up here."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from platform_support import (
    check_exercism,
    check_gradescope,
    check_prairielearn,
    make_check,
    make_report,
)

import syncgrade
from syncgrade.courses import EXERCISES, get_exercise
from syncgrade.models import GradeReport
from syncgrade.platforms import PLATFORMS, to_exercism, to_gradescope, to_prairielearn
from syncgrade.platforms.exercism import OUTPUT_NOTICE

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
CORPUS = ROOT / "tests" / "corpus"
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"
TAMPER = CORPUS / "integrity" / "forge_globals_patch.py"


def _broken_check(ctx: Any, **params: Any) -> Any:
    raise ZeroDivisionError("a bug in a check")


@pytest.fixture(scope="module")
def reports() -> dict[str, GradeReport]:
    grade = syncgrade.grade
    found = {
        "full": grade("exercise-1", SOLUTION),
        "partial": grade("exercise-1", NO_WAIT),
        "syntax": grade("exercise-1", source="def f(:\n    pass\n", display_name="s.py"),
        "timeout": grade("exercise-1", source="import time\ntime.sleep(600)\n", timeout=3),
        "unreadable": grade("exercise-1", source=""),
        "tampered": grade("exercise-1", TAMPER),
    }
    with pytest.MonkeyPatch.context() as patch:  # a check with a bug: a grader fault
        exercise = get_exercise("exercise-1")
        specs = tuple(dataclasses.replace(s, fn=_broken_check) if s.id == "numpy-match"
                      else s for s in exercise.checks)
        patch.setitem(EXERCISES, "exercise-1", dataclasses.replace(exercise, checks=specs))
        found["fault"] = grade("exercise-1", SOLUTION)
    return found


def test_the_reports_are_the_outcomes_they_stand_for(reports: dict[str, GradeReport]) -> None:
    got = {name: (r.status, r.cause) for name, r in reports.items()}
    assert got == {
        "full": ("passed", "graded"), "partial": ("failed", "graded"),
        "syntax": ("failed", "syntax_error"), "timeout": ("failed", "timeout"),
        "unreadable": ("failed", "unreadable"), "tampered": ("failed", "tampered"),
        "fault": ("error", "grader_fault")}


@pytest.mark.parametrize("case", ["full", "partial", "syntax", "timeout", "unreadable",
                                  "tampered", "fault"])
def test_every_format_matches_its_documented_field_set(
        reports: dict[str, GradeReport], case: str) -> None:
    report = reports[case]
    for reveal in (False, True):
        check_gradescope(to_gradescope(report, reveal=reveal))
        check_prairielearn(to_prairielearn(report, reveal=reveal))
        check_exercism(to_exercism(report, reveal=reveal))


def test_full_marks(reports: dict[str, GradeReport]) -> None:
    report = reports["full"]
    gs, pl, ex = (to_gradescope(report), to_prairielearn(report), to_exercism(report))
    assert gs["score"] == report.max_score == sum(t["max_score"] for t in gs["tests"])
    assert {t["status"] for t in gs["tests"]} == {"passed"}
    assert (pl["gradable"], pl["score"]) == (True, 1.0)
    assert ex["status"] == "pass"
    assert [t["name"].split(":")[0] for t in ex["tests"]] == [c.id for c in report.checks]


def test_partial_credit_and_the_learners_interval(reports: dict[str, GradeReport]) -> None:
    report = reports["partial"]
    lines = NO_WAIT.read_text().splitlines()
    gs = to_gradescope(report, source_lines=lines)
    assert 0 < gs["score"] < report.max_score
    sync = next(t for t in gs["tests"] if t["name"].startswith("sync-before-stop"))
    assert sync["status"] == "failed" and sync["score"] == 0
    assert "What your timer measured" in sync["output"]
    assert "perf_counter" in sync["output"]  # quotes the learner's own line
    pl = to_prairielearn(report, source_lines=lines)
    assert 0 < pl["score"] < 1
    assert pl["score"] == pytest.approx(report.score / report.max_score)
    pl_sync = next(t for t in pl["tests"] if t["name"].startswith("sync-before-stop"))
    assert "→" in pl_sync["message"] and "timer stop" in pl_sync["output"]
    ex = to_exercism(report)
    assert ex["status"] == "fail"
    assert next(t for t in ex["tests"] if t["name"].startswith("sync-before-stop"))[
        "status"] == "fail"


def test_a_syntax_error_is_not_gradable_on_prairielearn(
        reports: dict[str, GradeReport]) -> None:
    report = reports["syntax"]
    pl = to_prairielearn(report)
    assert pl["gradable"] is False and "score" not in pl
    assert "SyntaxError on line 1" in pl["format_errors"][0]
    assert "does not count" in pl["message"]
    ex = to_exercism(report)
    assert ex["status"] == "error" and "SyntaxError on line 1" in ex["message"]
    assert {t["status"] for t in ex["tests"]} == {"error"}
    gs = to_gradescope(report)
    assert gs["score"] == 0 and gs["tests"][0]["status"] == "failed"
    assert "line 1" in gs["tests"][0]["output"]
    # Every test is red on Gradescope, so the top line does not say "1 check(s) failed"
    # (issue 26): it gives the syntax error and says the other checks did not run.
    assert {t["status"] for t in gs["tests"]} == {"failed"}
    assert "check(s) failed" not in gs["output"]
    assert "SyntaxError on line 1" in gs["output"]
    assert f"{len(gs['tests']) - 1} other checks could not run" in gs["output"]


def test_a_learner_timeout_is_graded_not_a_grader_failure(
        reports: dict[str, GradeReport]) -> None:
    report = reports["timeout"]
    pl = to_prairielearn(report)
    assert pl["gradable"] is True and pl["score"] == 0.0  # the attempt counts
    assert "time limit" in pl["tests"][0]["message"]
    ex = to_exercism(report)
    assert ex["status"] == "fail" and ex["message"] is None
    assert ex["tests"][0]["status"] == "fail" and "time limit" in ex["tests"][0]["message"]
    assert {t["status"] for t in ex["tests"][1:]} == {"error"}  # not checked
    gs = to_gradescope(report)
    assert gs["extra_data"]["syncgrade"]["cause"] == "timeout"
    assert "time limit" in gs["output"]


def test_an_unreadable_file_does_not_cost_an_attempt(reports: dict[str, GradeReport]) -> None:
    report = reports["unreadable"]
    pl = to_prairielearn(report)
    assert pl["gradable"] is False and "empty" in pl["format_errors"][0]
    assert to_exercism(report)["status"] == "error"
    assert to_gradescope(report)["score"] == 0


def test_tampering_scores_nothing_and_says_why(reports: dict[str, GradeReport]) -> None:
    report = reports["tampered"]
    # The adapters carry the engine's score as it is (today `runs` keeps its point).
    pl = to_prairielearn(report)
    assert pl["gradable"] is True and pl["score"] == report.score / report.max_score < 0.5
    assert "grader" in pl["message"]
    assert to_exercism(report)["status"] == "fail"
    gs = to_gradescope(report)
    assert gs["score"] == report.score and gs["extra_data"]["syncgrade"]["cause"] == "tampered"
    assert "Not trusted" in next(t for t in gs["tests"] if t["name"].startswith("numpy"))[
        "output"]


def test_a_grader_fault_never_blames_or_charges_the_learner(
        reports: dict[str, GradeReport]) -> None:
    report = reports["fault"]
    pl = to_prairielearn(report)
    assert pl["gradable"] is False and "not your fault" in pl["format_errors"][0]
    ex = to_exercism(report)
    assert ex["status"] == "error" and "not your fault" in ex["message"]
    gs = to_gradescope(report)
    assert (gs["score"], gs["tests"]) == (0.0, [])
    assert "not your fault" in gs["output"]
    assert gs["extra_data"]["syncgrade"].items() >= {("status", "error"), ("cause", "grader_fault")}
    for results in (pl, ex, gs):  # the exception text is for staff logs only
        assert "a bug in a check" not in str(results)


def test_exercism_caps_the_learners_output_at_500_chars() -> None:
    long = make_report(make_check("runs", "passed"), make_check("shape", "failed"),
                       stdout="x" * 2000)
    runs = to_exercism(long)["tests"][0]
    assert len(runs["output"]) <= 500 and runs["output"].endswith(OUTPUT_NOTICE)
    assert to_exercism(long)["tests"][1]["output"] is None  # the runner's text never goes
    short = make_report(make_check("runs", "passed"), status="passed", stdout="hello\n")
    assert to_exercism(short)["tests"][0]["output"] == "hello"


def test_stderr_tail_reaches_the_learner_only_when_not_full_marks() -> None:
    failed = make_report(make_check("runs"), stderr="Traceback\nValueError: boom\n")
    assert "ValueError: boom" in to_gradescope(failed)["output"]
    assert "ValueError: boom" in to_prairielearn(failed)["output"]
    passed = make_report(make_check("runs", "passed"), status="passed", stderr="warn\n")
    assert "warn" not in to_gradescope(passed)["output"]


def test_platform_registry_is_the_three_adapters() -> None:
    expected = {"gradescope": to_gradescope, "prairielearn": to_prairielearn,
                "exercism": to_exercism}
    assert expected == PLATFORMS
    from syncgrade import cli
    from syncgrade.platforms.output import OUTPUT_FORMATS

    assert cli.OUTPUT_FORMATS == OUTPUT_FORMATS
