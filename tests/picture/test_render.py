"""The terminal view: one interval that fails several checks is drawn once, then referred
to; every line fits the width; one mistake that fails several checks has one lead."""

from __future__ import annotations

import re
from typing import Any

import pytest

from syncgrade.grading.present import present
from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    Evidence,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
    Timeline,
    TimelineEntry,
)
from syncgrade.render import MIN_WIDTH, leads, render, terminal_width

SOURCE = ["start = time.perf_counter()", "out = fn(*args)", "stop = time.perf_counter()"]
LONG = ("The inputs of the first timed call were not waited on before the timer started on "
        "line 29, so the first sample may include finishing their placement, which is a "
        "rather long message that has to wrap several times at any usual width.")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _timeline(stop_line: int = 3) -> Timeline:
    return Timeline(file="submission.py", seconds=1e-4, ready_at_stop=False, entries=[
        TimelineEntry(what="timer start", detail="perf_counter", line=1),
        TimelineEntry(what="call", detail="fn(...) dispatched", line=2),
        TimelineEntry(what="timer stop", detail="perf_counter", line=stop_line,
                      note="the timed work was still running when the timer stopped"),
    ])


def _failed(check_id: str, timeline: Timeline | None = None, *, message: str = "",
            hint: str = "Change it.", **facts: Any) -> CheckResult:
    return CheckResult(id=check_id, title=check_id, status="failed", points=0, max_points=1,
                       message=message or f"{check_id} failed.", hint=hint,
                       evidence=Evidence(timeline=timeline, facts=facts))


def _passed(check_id: str, message: str = "Fine.") -> CheckResult:
    return CheckResult(id=check_id, title=check_id, status="passed", points=1, max_points=1,
                       message=message)


def _report(*checks: CheckResult, stderr: str = "") -> GradeReport:
    empty = StreamExcerpt(text="", truncated=False, total_bytes=0)
    score = sum(c.points for c in checks)
    full = score == len(checks)
    return GradeReport(schema_version=SCHEMA_VERSION, exercise="exercise-1", title="t",
                       submission="submission.py", status="passed" if full else "failed",
                       cause="graded", score=score, max_score=len(checks), summary="s",
                       checks=present(checks), stdout=empty,
                       stderr=StreamExcerpt(text=stderr, truncated=False,
                                            total_bytes=len(stderr)),
                       grading=GradingInfo(seconds=1.0, timeout_s=60),
                       provenance=Provenance(syncgrade_version="0", rubric_version="1"))


def _flat(text: str) -> str:
    """The text with every run of whitespace one space: what a wrapped line says."""
    return " ".join(text.split())


def test_the_same_timeline_is_drawn_once_and_referred_to() -> None:
    text = render(_report(_failed("sync-before-stop", _timeline()),
                          _failed("warmup-excluded", _timeline()),
                          _failed("inputs-ready", _timeline())), SOURCE, width=80)
    assert text.count("What your timer measured (submission.py") == 1
    assert text.count("out = fn(*args)") == 1
    assert _flat(text).count("the same interval as under `sync-before-stop` above") == 2


def test_different_timelines_are_each_drawn() -> None:
    text = render(_report(_failed("sync-before-stop", _timeline(3)),
                          _failed("placement-excluded", _timeline(4)),
                          _failed("sample-count", None)), SOURCE, width=80)
    assert text.count("What your timer measured (submission.py") == 2
    assert "the same interval as" not in text


# --------------------------------------------------------------------------- width


def _busy_report() -> GradeReport:
    timeline = Timeline(file="src/a/rather/long/path/to/the/submission_file.py", seconds=0.2,
                        entries=[
                            TimelineEntry(what="timer start", line=1),
                            TimelineEntry(what="call with NumPy arguments", line=4,
                                          note="NumPy data is copied to the device here"),
                            TimelineEntry(what="timer stop", line=3, note=LONG),
                        ])
    return _report(_passed("runs", "Your file loads and every call returned."),
                   _failed("inputs-ready", timeline, message=LONG, hint=LONG),
                   _failed("a-check-with-a-very-long-identifier-indeed", message=LONG),
                   stderr="Traceback: " + "x" * 300 + "\nValueError: " + LONG)


@pytest.mark.parametrize("width", [40, 50, 60, 72, 80, 100, 120, 200])
def test_no_line_is_longer_than_the_width(width: int) -> None:
    source = [*SOURCE, "result = some_module.helper(fn, *args, repeats=repeats, "
              "device=jax.devices()[0], label='a very long label')"]
    text = render(_busy_report(), source, width=width)
    too_long = [line for line in text.splitlines() if len(line) > width]
    assert not too_long, "\n".join(too_long)
    assert _flat(LONG) in _flat(text)  # wrapped, not cut: every word is still there


def test_colour_codes_do_not_count_and_lines_still_fit() -> None:
    text = render(_busy_report(), SOURCE, colour=True, width=60)
    assert "\x1b[" in text
    assert max(len(ANSI.sub("", line)) for line in text.splitlines()) <= 60


def test_a_narrow_terminal_gets_the_floor_width() -> None:
    text = render(_busy_report(), SOURCE, width=12)
    assert terminal_width(12) == MIN_WIDTH
    assert max(len(line) for line in text.splitlines()) <= MIN_WIDTH
    assert _flat(LONG) in _flat(text)


def test_the_default_width_is_the_terminals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "64")
    assert terminal_width() == 64
    text = render(_busy_report(), SOURCE)
    assert max(len(line) for line in text.splitlines()) <= 64


def test_continuation_lines_keep_the_indentation_of_their_block() -> None:
    text = render(_report(_failed("inputs-ready", message=LONG, hint=LONG)), width=80)
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "inputs-ready" in line)
    column = lines[first].index("The inputs")
    hint = next(i for i, line in enumerate(lines) if "→" in line)
    assert all(line.startswith(" " * column) and line[column] != " "
               for line in lines[first + 1:hint])
    assert lines[hint].index("→") == column
    after = lines[hint + 1:lines.index("", hint)]
    assert after and all(line.startswith(" " * (column + 2)) and line[column + 2] != " "
                         for line in after)


def test_long_code_in_a_timeline_is_shortened_not_wrapped() -> None:
    source = ["start = time.perf_counter()",
              "out = fn(" + ", ".join(f"argument_{i}" for i in range(20)) + ")",
              "stop = time.perf_counter()"]
    text = render(_report(_failed("sync-before-stop", _timeline())), source, width=60)
    row = next(line for line in text.splitlines() if "line 2 " in line)
    assert row.rstrip().endswith("…") and len(row) <= 60
    assert "argument_19" not in text
    note = text.splitlines()[text.splitlines().index(
        next(line for line in text.splitlines() if "line 3 " in line)) + 1]
    assert note.strip().startswith("← the timed work was still running")


def test_a_number_and_its_unit_stay_on_one_line() -> None:
    message = ("With a workload the grader knows takes about 50 ms, your shortest sample "
               "was 0.11 ms (0% of the work), on line 31.")
    for width in range(40, 90):
        lines = render(_report(_failed("covers-device-work", message=message)),
                       width=width).splitlines()
        assert not any(line.rstrip().endswith(("50", "0.11", "line")) for line in lines)


# --------------------------------------------------------------------------- one lead


def _missing_warm_up() -> list[CheckResult]:
    """What a stub without a warm-up fails (exercise-6), with the facts the checks write,
    in the exercise's order (every lead above its followers)."""
    return [
        _passed("runs"),
        _failed("warmup-excluded", _timeline(), hint="Call the function once first.",
                flaw="compilation", at_line=1),
        _failed("inputs-ready", _timeline(), hint="Wait for the inputs.",
                flaw="inputs not ready", at_line=1,
                follows="compilation|warm-up not waited"),
        _failed("sync-before-stop", _timeline(), hint="Wait on the output.",
                flaw="no output wait", at_line=1),
        _failed("covers-device-work", hint="Wait for the output inside the interval.",
                flaw="no output wait", at_line=1),
        _failed("boundary-matches", _timeline(), hint="Declare the phases your interval "
                "really contains.", flaw=None, at_line=1, follows="compilation"),
    ]


def test_a_missing_warm_up_leads_and_the_checks_it_failed_follow() -> None:
    checks = _missing_warm_up()
    report = _report(*checks)
    assert leads(report) == {"boundary-matches": ["warmup-excluded"],
                             "inputs-ready": ["warmup-excluded"],
                             "covers-device-work": ["sync-before-stop"]}
    assert [c.id for c in report.checks] == [c.id for c in checks]  # the order given
    text = _flat(render(report, SOURCE, width=80))
    assert text.count("Because of `warmup-excluded` above") == 2
    assert text.count("Because of `sync-before-stop` above") == 1
    assert "below" not in text
    # The followers' own hints are gone: none points away from the fix.
    assert "Declare the phases" not in text and "Wait for the inputs" not in text
    assert "Wait for the output inside the interval" not in text
    assert "Call the function once first." in text and "Wait on the output." in text
    # The lead draws the interval; the followers refer to it.
    assert _flat("the same interval as under `warmup-excluded` above") in text


def test_a_lead_below_its_follower_is_said_to_be_below_and_nothing_moves() -> None:
    """A lead the exercise's order shows after its follower stays there (issue 35: the
    order of checks must not depend on which failed); the hint says where it is, and the
    follower draws its own interval, since a drawing is referred to only from below."""
    checks = _missing_warm_up()
    boundary = checks.pop()
    checks.insert(1, boundary)
    report = _report(*checks)
    assert [c.id for c in report.checks] == [c.id for c in checks]
    shown = {c.id: c for c in report.checks}
    assert shown["boundary-matches"].follows == ["warmup-excluded"]
    assert shown["boundary-matches"].hint == (
        "Because of `warmup-excluded` below: fixing that fixes this too.")
    assert shown["inputs-ready"].hint.startswith("Because of `warmup-excluded` above")
    assert shown["boundary-matches"].same_interval_as is None
    seen = [c.id for c in report.checks]
    for check in report.checks:
        if check.same_interval_as is not None:
            assert seen.index(check.same_interval_as) < seen.index(check.id)


def test_flaws_at_other_lines_are_other_mistakes() -> None:
    checks = _missing_warm_up()
    moved = [c.model_copy(update={"evidence": c.evidence.model_copy(update={
        "facts": {**c.evidence.facts, "at_line": 40}})}) if c.id == "warmup-excluded" else c
        for c in checks]
    assert leads(_report(*moved)) == {"covers-device-work": ["sync-before-stop"]}


def test_a_follower_needs_every_flaw_it_names_seen() -> None:
    boundary = _failed("boundary-matches", flaw=None, at_line=1,
                       follows="compilation; no output wait")
    warmup = _failed("warmup-excluded", flaw="compilation", at_line=1)
    sync = _failed("sync-before-stop", flaw="no output wait", at_line=1)
    assert leads(_report(boundary, warmup)) == {}
    assert leads(_report(boundary, warmup, sync)) == {
        "boundary-matches": ["warmup-excluded", "sync-before-stop"]}
    text = _flat(render(_report(warmup, sync, boundary), width=80))
    assert ("Because of `warmup-excluded` and `sync-before-stop` above: fixing those fixes "
            "this too") in text
    text = _flat(render(_report(warmup, boundary, sync), width=80))
    assert ("Because of `warmup-excluded` (above) and `sync-before-stop` (below): fixing "
            "those fixes this too") in text
    assert text.index("✗ boundary-matches") < text.index("✗ sync-before-stop")


def test_passed_checks_lead_nothing_and_cycles_are_dropped() -> None:
    warmup = _passed("warmup-excluded")
    boundary = _failed("boundary-matches", follows="compilation", at_line=1)
    assert leads(_report(warmup, boundary)) == {}
    a = _failed("a", flaw="compilation", follows="input placement")
    b = _failed("b", flaw="input placement", follows="compilation")
    assert leads(_report(a, b)) == {}
    text = render(_report(a, b), width=80)
    assert text.index("✗ a") < text.index("✗ b") and "Because of" not in text


def test_leads_change_no_points_or_verdicts() -> None:
    report = _report(*_missing_warm_up())
    text = render(report, SOURCE, width=80)
    for check in report.checks:
        mark = "✓" if check.status == "passed" else "✗"
        assert f"{mark} {check.id}" in text
    assert "score 1/6" in text


def test_the_learners_stderr_keeps_its_indentation_and_fits() -> None:
    stderr = "Traceback (most recent call last):\n  File \"x.py\", line 3\n" + "y" * 130
    text = render(_report(_failed("runs"), stderr=stderr), width=60)
    lines = text.splitlines()
    assert '    File "x.py", line 3' in lines  # two spaces of ours, two of the traceback
    assert max(len(line) for line in lines) <= 60
    assert "".join(line.strip() for line in lines if "yyy" in line) == "y" * 130


def test_the_learners_stderr_breaks_between_words_only() -> None:
    """A line of the learner's stderr is cut at a space (issue 35: an excerpt read
    `INV` / `ALID_ARGUMENT`); only a word longer than a line is cut."""
    error = ("jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Invalid buffer passed "
             "to Execute() as argument 0 to replica 0: INVALID_ARGUMENT: Buffer has been "
             "deleted or donated.")
    text = render(_report(_failed("runs"), stderr=f"Traceback\n{error}\n"), width=80)
    lines = text.splitlines()
    shown = lines[lines.index("  Traceback") + 1:]
    words = error.split()
    assert " ".join(" ".join(shown).split()) == " ".join(words) and len(shown) > 2
    for line in shown:  # every piece starts and ends on a word of the error, whole
        assert line.split()[0] in words and line.split()[-1] in words, line
    assert max(len(line) for line in text.splitlines()) <= 80


HINT_WITH_CODE = ("Compare with a NumPy reference computed from the host copies, e.g. "
                  "`np.testing.assert_allclose(np.asarray(out), np.tanh(larger_host @ "
                  "w_host), atol=2e-5, rtol=2e-5)`, and let the `AssertionError` reach the "
                  "caller.")


@pytest.mark.parametrize("width", [80, 100, MIN_WIDTH])
def test_code_in_a_hint_is_never_cut_inside_a_word(width: int) -> None:
    """Issue 35: exercise-4's hint read "`n" / "p.testing.assert_allclose(np.asarray(o" /
    "ut)" at 80 columns (stdout not a terminal): a long piece of code made the next
    closing backtick open a glued run of prose, and the glued word was cut."""
    text = render(_report(_failed("numpy-match", message="The check passed on wrong "
                                  "results.", hint=HINT_WITH_CODE)), width=width)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "→" in line)
    hint = lines[start:start + 8]
    words = HINT_WITH_CODE.split()
    pieces = [w for line in hint for w in line.replace("→", "").split()]
    joined = " ".join(pieces)
    assert joined.startswith(" ".join(words[:5]))
    if width >= 80:  # every piece a whole word of the hint: copyable
        assert set(pieces[:len(words)]) <= set(words), hint
        assert "`np.testing.assert_allclose(np.asarray(out)," in pieces
    assert max(len(line) for line in lines) <= width
