"""Golden reports: the report a learner sees for a corpus file, kept beside the corpus
(``<exercise>/corpus/golden/<kind>/<name>.txt`` and ``.json``; tests/corpus/README.md,
"Golden reports") and compared inside the grades tests/courses/test_corpus.py already
makes: no grade of its own.

What is compared is the real report with its *measured* amounts masked, and nothing else:
titles, check order, statuses, points, messages, hints, line numbers, leads, timelines
and pictures' events stay compared. Masked, because they differ from one grade of the
same file to the next (more so at load 10-20 on a CI machine):

- the grade's own duration, ``grading.seconds`` ("(graded in N s + start-up)");
- every duration in words: "N ms" (the calibrated workload, a shortest sample, an
  interval's unexplained host CPU time, "measured N ms" above a timeline) and the share
  of the work a sample covered, "(N% of the work)";
- which interval a race shows in ("In interval N,", "For `settings[0]`: in interval N,",
  "warm interval N measured", "first-call interval N stops the timer", "sample N
  lasted"): a no-wait sample's work may finish before the stop read in one interval and
  not in the next (tests/docs/test_docs_examples.py ``normalised`` does the same); an
  interval named for a fixed reason ("Interval 1 includes compiling") is kept;
- durations the learner's own report states (`` `warm_median_s` is N ``: summary-stats);
- every figure computed from the values on this CPU (its BLAS, its vector width and its
  rounding decide the last digits): how many values differ from the NumPy reference, the
  largest difference and the rounding allowed there (numpy-match's words and facts), and
  every digit of the learner's own output (stdout and stderr quote NumPy's assertion
  text, with its values printed to 17 digits);
- a timeline's and a picture's ``host work`` segment, drawn only when the interval's
  unexplained host CPU time passes a bound (the picture's indices renumbered);
- the facts that hold measured amounts (:data:`MEASURED_FACTS`), every ``seconds`` (the
  grade's, a timeline's, a picture's and its clock reads') and the learner's reported
  samples (their count is kept);
- the versions in ``provenance`` (the rubric's version, the backend and the device are
  kept), and the time stamps and thread ids of JAX's C++ log lines in the learner's
  stderr.

A check the co-firing rule lets a file fail or pass (``syncgrade.authoring.cases.CO_FIRING``:
``sample-duration`` in a file expected to fail ``interval-clean``) is masked whole: its line
is replaced by a fixed stand-in (:func:`co_fire_masked`: skipped, no points, no evidence,
a message saying why), and the score and summary follow.

Not measured but not the submission's either, ``grading.protections`` is replaced whole
(:data:`MACHINE`): it describes the grading machine (paths of the checkout, a CPU limit
from its core count, the protections its privileges allow, a random uid), so a golden
written in one checkout holds in another, on CI and on a laptop.

Reports that vary beyond these amounts (a race decides which message or drawing shows)
have no golden: :data:`LEFT_OUT` names them and says why.

The terminal text is :func:`syncgrade.daemon.render_report` (what ``grade`` prints, no
colour, 80 columns, the learner's view) of the report with those amounts masked *before*
rendering, so a longer or shorter number never moves a line break.

``SYNCGRADE_UPDATE_GOLDEN=1`` rewrites the goldens of the files graded instead of comparing.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpus_support import CorpusCase

from syncgrade.child import recorder
from syncgrade.models import GradeReport

UPDATE_ENV = "SYNCGRADE_UPDATE_GOLDEN"
GOLDEN = "golden"
WIDTH = 80
MASK = "N"

_PRINTS_SAMPLES = "prints its own measured samples (floats of any length) to stdout"
_SECOND_DRAWING = (
    "a race in the output's readiness (no wait on the timed output) and a second failing "
    "check that draws an interval of its own choosing: whether that interval's work was "
    "complete at the stop read is measured, and with it whether it is drawn again or is "
    "`the same interval as` the first check's")
_DERIVED_SAMPLES = (
    "its samples are computed from clock readings (an overhead subtracted, a loop's time "
    "divided): which of them happen to equal a clock difference within samples-measured's "
    "tolerance is measured, and the message lists them")
_HOST_WORK = (
    "interval-clean's host work: which lines the unexplained host CPU time is charged to "
    "(\"Line 15 spends\" or \"Lines 15-16 spend\"), and where its segment is drawn among "
    "the interval's events, follow measured CPU times")
_MAY_FAIL = (
    "its header's '# may-fail' checks fail or pass as the flaw's measured size happens to "
    "fall: sample-duration as the samples end past the call's measured bound, "
    "interval-clean as sixty eager dispatches' glue in one interval ends near the list's "
    "5 ms allowance under load")
_GRADER_RUNS_PRINT = (
    "its timed program prints from the host (`jax.debug.print`), so the grader's own runs "
    "of the call (sample-duration's reference: 2 or 3, as the runs' measured length "
    "decides) print too, and the number of lines the learner's output shows follows load")
_BACKGROUND_READS = (
    "a thread of the learner's reads the clock over and over beside the timed loop: how "
    "many of its reads fall around the interval, and so how many events the picture "
    "leaves out (\"31 more events\", \"103 more events\"), follows scheduling")
_LATE_WAIT_DRAWN = (
    "no wait before any stop read and one after the loop: which interval is drawn (the "
    "first whose work was still running at its stop read) is measured, and the late "
    "wait after the stop is drawn only when that is the last interval")
LEFT_OUT: dict[str, str] = {
    "exercise-1/flawed/background_busy_thread": _BACKGROUND_READS,
    "exercise-10/flawed/no_wait": _LATE_WAIT_DRAWN,
    **dict.fromkeys(["exercise-6/flawed/args_not_waited",
                     "exercise-1/flawed/eager_einsum_on_output",
                     "exercise-3/flawed/eager_einsum_on_output",
                     "exercise-1/flawed/untimed_larger_call_after_samples",
                     "exercise-3/flawed/untimed_larger_call_after_samples",
                     "exercise-5/flawed/untimed_other_jit_after_samples"], _MAY_FAIL),
    "exercise-5/flawed/debug_print_inside_energy": _GRADER_RUNS_PRINT,
    **dict.fromkeys(["exercise-4/correct/lesson_reference",
                     "exercise-5/correct/lesson_reference"], _PRINTS_SAMPLES),
    **dict.fromkeys([
        "exercise-6/flawed/no_wait", "exercise-6/flawed/waits_on_previous_result",
        "exercise-7/flawed/first_call_no_wait", "exercise-7/flawed/no_wait",
        "exercise-7/flawed/warm_no_wait", "exercise-7/flawed/warm_waits_on_previous_output",
        "exercise-8/flawed/readback_after_stop", "exercise-1/flawed/sleep_instead_of_wait",
        "exercise-1/flawed/long_sleep_instead_of_wait"], _SECOND_DRAWING),
    **dict.fromkeys([
        *(f"exercise-{n}/flawed/subtracts_timer_overhead" for n in (4, 5, 6, 7, 8)),
        "exercise-1/flawed/whole_loop_one_interval", "exercise-3/flawed/whole_loop_one_interval",
        "exercise-7/flawed/ten_calls_averaged", "exercise-9/flawed/whole_setting_averaged",
        "exercise-10/flawed/wrong_step_made_up"],
        _DERIVED_SAMPLES),
    **dict.fromkeys([
        "exercise-1/flawed/assert_allclose_inside_timer",
        "exercise-1/flawed/eager_sum_inside_timer", "exercise-1/flawed/numpy_check_inside_timer",
        "exercise-3/flawed/assert_allclose_inside_timer",
        "exercise-3/flawed/numpy_check_inside_timer", "exercise-4/flawed/check_inside_timer",
        "exercise-5/flawed/jit_in_timed_loop", "exercise-5/flawed/numpy_check_inside_timer",
        "exercise-5/flawed/reference_check_inside_timer",
        "exercise-6/flawed/assert_allclose_inside_timer",
        "exercise-7/flawed/assert_allclose_inside_warm_timer",
        "exercise-8/flawed/numpy_check_inside_timer",
        "exercise-9/flawed/assert_allclose_inside_timer"], _HOST_WORK),
}
"""Corpus files without a golden, and why: each one's report varies from grade to grade
beyond what masking a measured amount can hide (seen at load 10-20, or the same flaw as
a file that was). Every other corpus file has a golden."""

MEASURED_FACTS = frozenset({
    "known_ms", "shortest_ms",  # covers-device-work: the calibrated workload, a sample
    "unexplained_ms",           # interval-clean: host CPU time no event explains
    "blocked_ms",               # interval-clean: blocking no event explains
    "failing_intervals",        # sync-before-stop: how many intervals lost the race
    "largest_error", "allowed_there",  # numpy-match: computed from values on this CPU
    # sample-duration: the learner's and the grader's measured durations, the bound from
    # them, and how many runs the grader's budget allowed
    "median_ms", "call_ms", "bound_ms", "longest_ms", "grader_runs",
    # and which sample is furthest over, and how many are over: when several samples are
    # over by amounts of the same size, which one is furthest follows measured times
    "sample", "over_bound",
})
"""Evidence facts whose value is a measured amount (or a count of races lost)."""

_MEASURED_WORDS = [re.compile(pattern.replace(" ", r"\s+"), re.MULTILINE) for pattern in (
    r"\(graded in (\d+(?:\.\d+)?) s \+ start-up\)",
    r"\b(\d+(?:\.\d+)?) ms\b",
    r"\((\d+(?:\.\d+)?)% of the work\)",
    r"\b[Ii]n interval (\d+),",
    r"\b(?:warm|but) interval (\d+) measured\b",
    r"\bnothing in sample (\d+) waited\b",
    r"\bshortest sample was [\dN.]+ ms, (\d+)% of the work\)",
    r"\bfirst-call interval (\d+) stops the timer\b",
    r"`\w+_s` is (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\b",  # a reported duration (seconds)
    r"^\s*[EWIF](\d{4} \d\d:\d\d:\d\d\.\d+) (\d+) ",  # JAX's C++ log lines
    r"\b(\d+) of \d+ values differ\b",  # numpy-match: values on this CPU
    # sample-duration: how many samples are over, and which is furthest over
    r"\bOf your \d+ samples, (\d+) took longer\b",
    r"\bthe furthest over, sample (\d+), took\b",
    r"\blargest difference is (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)",
    r"\ballows at most (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)",
    # interval-clean's unrecorded blocking: which lines it names follows the stamps of
    # the events around the pause (a wait recorded without its end stamp under load
    # widens the stretch by a line); tests/analysis/test_unrecorded_blocking.py names them
    r"\b(Lines? \d+(?:-\d+)? waits?) [\dN.]+ ms in the interval\b",
)]
"""Measured (or random) amounts in a report's words: each group is one, and only the groups
are replaced. A space matches any run of white space, so a masked amount is found in the
terminal text too, where a line may break inside the phrase."""


def masked_words(text: str, amount: str = MASK) -> str:
    """``text`` with every amount :data:`_MEASURED_WORDS` finds replaced by ``amount``."""

    def masked(match: re.Match[str]) -> str:
        out, at = [], match.start()
        for group in range(1, (match.re.groups or 0) + 1):
            out += [match.string[at:match.start(group)], amount]
            at = match.end(group)
        return "".join([*out, match.string[at:match.end()]])

    for pattern in _MEASURED_WORDS:
        text = pattern.sub(masked, text)
    return text


_CLOCK_NAMES = (*(name for name, _read in recorder.CLOCKS),
                *(name for name, _read, _id in recorder.ID_CLOCKS), *recorder.DATETIME_CLOCKS)
_MEASURED_REPEATS = re.compile(
    rf"^(time\.sleep|{'|'.join(map(re.escape, _CLOCK_NAMES))}) \(\d+ times\)$")
"""A timeline step of repeated sleeps or reads of any clock the recorder hooks (see
:func:`_masked`)."""

LEARNER_STREAMS = frozenset({"stdout", "stderr"})
"""The report's excerpts of the learner's own output: every digit in them is masked, since
a learner may print any value computed on this CPU (NumPy's assertion text prints 17)."""
_DIGITS = re.compile(r"\d+")


MACHINE = "(the grading machine's)"
"""Stands for ``grading.protections``: the sandbox's account of the machine that grades
(its checkout's paths, its core count in the CPU limit, which protections its privileges
allow, a random per-run uid), the same for every submission; tests/sandbox covers it."""

_SENTINEL_S = 1e-3
"""Stands for a measured number of seconds in the report that is rendered (masked again,
in words, after rendering)."""
_SENTINEL_WORDS = "0"
"""Stands for a measured amount in the words of the report that is rendered: a digit, so
that the line breaks fall as they do around a real amount ("0 ms" is kept together)."""


def _masked(value: Any, key: str, number: Any, amount: str) -> Any:
    """The report's data (``model_dump(mode="json")``) with measured amounts masked:
    strings through :func:`masked_words` (``amount``), measured numbers replaced by
    ``number``."""
    if isinstance(value, dict):
        if key == "facts":
            return {k: (number if k in MEASURED_FACTS and v is not None
                        else _masked(v, k, number, amount)) for k, v in value.items()}
        if key == "samples":
            return {k: [number] * len(v) for k, v in value.items()}
        if key in LEARNER_STREAMS:
            return {k: (_DIGITS.sub(MASK, v) if k == "text" else v)
                    for k, v in value.items()}
        return {k: _masked(v, k, number, amount) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, key, number, amount) for v in value]
    if isinstance(value, str):
        if key == "detail":
            # How many sleeps a poll loop made (`while not out.is_ready():
            # time.sleep(0.02)`, drawn as one step "time.sleep (2 times)") follows how
            # long the call took, and how many clock reads a busy-wait kept ("perf_counter
            # (14 times)": a run shorter than the recorder thins, on a loaded machine)
            # follows how long it ran: measured counts, drawn as the step alone.
            value = _MEASURED_REPEATS.sub(r"\1", value)
        return masked_words(value, amount)
    if key == "seconds" and isinstance(value, float) and math.isfinite(value):
        return number
    return value


def _without_host_work(evidence: dict[str, Any]) -> None:
    """``evidence`` without the ``host work`` segment of its timeline and picture: the
    segment is drawn only when the interval's unexplained host CPU time passes a bound
    (``syncgrade.rubric.timeline``), a measured amount drawn as an event, so it comes and
    goes from one grade to the next. The picture's indices are renumbered to match."""
    if evidence["timeline"] is not None:
        entries = evidence["timeline"]["entries"]
        entries[:] = [e for e in entries if e["what"] != "host work"]
    picture = evidence["interval"]
    if picture is None:
        return
    kept = [i for i, e in enumerate(picture["host"]) if e["kind"] != "host work"]
    index = {old: new for new, old in enumerate(kept)}
    picture["host"] = [picture["host"][i] for i in kept]
    picture["start"], picture["stop"] = index[picture["start"]], index[picture["stop"]]
    for work in picture["device"]:
        work["dispatched_at"] = index[work["dispatched_at"]]
        if work["ready_at"] is not None:
            work["ready_at"] = index[work["ready_at"]]
    picture["flaws"] = [{**f, "at": index[f["at"]]} for f in picture["flaws"]
                        if f["at"] in index]


def _masked_data(report: GradeReport, number: Any, amount: str) -> dict[str, Any]:
    """The learner's view of ``report`` (hidden checks redacted, as ``grade`` shows it),
    as data, masked (:func:`_masked`)."""
    from syncgrade.platforms.visibility import redact

    data: dict[str, Any] = _masked(redact(report).model_dump(mode="json"), "", number, amount)
    for check in data["checks"]:
        _without_host_work(check["evidence"])
    for name in ("syncgrade_version", "python_version", "jax_version", "jaxlib_version",
                 "numpy_version"):
        if data["provenance"][name] is not None:
            data["provenance"][name] = amount
    return data


def golden_json(report: GradeReport) -> str:
    """The report's JSON as ``grade --format json`` writes it (the learner's view,
    ``model_dump_json``'s fields and order, 2-space indent), each measured amount ``"N"``."""
    data = _masked_data(report, MASK, MASK)
    data["grading"]["protections"] = MACHINE
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def golden_text(report: GradeReport, source_lines: Sequence[str] | None) -> str:
    """What ``grade`` prints for ``report`` (learner's view, no colour, 80 columns), its
    measured amounts masked before rendering and the rendered sentinels after."""
    from syncgrade.daemon import render_report

    data = _masked_data(report, _SENTINEL_S, _SENTINEL_WORDS)
    shown = GradeReport.model_validate(data)
    return masked_words(render_report(shown, "text", reveal=False, lines=source_lines,
                                      colour=False, width=WIDTH))


CO_FIRE_MESSAGE = (
    "(masked in the golden: this file's flaw may fail this check too, or not, as its "
    "extra time happens to fall; tests/corpus/README.md, \"Co-firing checks\")")
_GENERIC_SUMMARY = re.compile(r"\d+ check\(s\) failed: .*\.")


def co_fire_masked(report: GradeReport, checks: frozenset[str]) -> GradeReport:
    """``report`` with each check in ``checks`` (``CorpusCase.co_firing``) replaced by one
    fixed stand-in, failed or passed: skipped (neither verdict), no points,
    :data:`CO_FIRE_MESSAGE`, no hint or evidence; the score, and a summary that lists the
    failed checks, follow. Raises
    AssertionError when another check refers to a masked one's drawing (such a file
    needs a place in :data:`LEFT_OUT` instead)."""
    if not any(c.id in checks for c in report.checks):
        return report
    from syncgrade.models import Evidence

    shown = [c.model_copy(update={"status": "skipped", "points": 0.0,
                                  "message": CO_FIRE_MESSAGE, "hint": "",
                                  "evidence": Evidence(), "follows": [],
                                  "same_interval_as": None})
             if c.id in checks else c for c in report.checks]
    referring = [c.id for c in shown if c.same_interval_as in checks]
    assert not referring, f"{referring} refer to a masked check's drawing"
    summary = report.summary
    if _GENERIC_SUMMARY.fullmatch(summary):
        failed = [c.id for c in shown if c.status == "failed"]
        summary = f"{len(failed)} check(s) failed: {', '.join(failed)}."
    return report.model_copy(update={"checks": shown, "summary": summary,
                                     "score": sum(c.points for c in shown)})


def golden_paths(case: CorpusCase) -> tuple[Path, Path]:
    """Where ``case``'s goldens live: ``corpus/golden/<kind>/<name>.txt`` and ``.json``."""
    folder = case.path.parent.parent / GOLDEN / case.path.parent.name
    return folder / f"{case.path.stem}.txt", folder / f"{case.path.stem}.json"


def has_golden(case: CorpusCase) -> bool:
    """Whether ``case`` is in the golden set: every corpus file not in :data:`LEFT_OUT`."""
    return case.id not in LEFT_OUT


def updating() -> bool:
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")


def assert_matches_golden(case: CorpusCase, report: GradeReport,
                          source_lines: Sequence[str] | None) -> None:
    """``report`` (a grade of ``case``, whose lines as graded are ``source_lines``: see
    ``syncgrade.grading.grade_result``), masked, is ``case``'s golden text and JSON; with
    ``SYNCGRADE_UPDATE_GOLDEN=1`` the goldens are written instead. A missing golden
    fails, saying how to create it. The checks the co-firing rule lets it fail are masked
    whole (:func:`co_fire_masked`)."""
    text_path, json_path = golden_paths(case)
    report = co_fire_masked(report, case.co_firing)
    assert_golden_files(
        {text_path: golden_text(report, source_lines),
         json_path: golden_json(report)},
        f"{UPDATE_ENV}=1 pytest tests/courses/test_corpus.py -k '{case.id}'")


def assert_golden_files(actual: dict[Path, str], update: str) -> None:
    """Each file holds its text; with ``SYNCGRADE_UPDATE_GOLDEN=1`` each is written
    instead. A missing or different file fails, naming ``update``, the command that
    rewrites it, and showing the difference."""
    if updating():
        for path, text in actual.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return
    for path, text in actual.items():
        assert path.is_file(), (
            f"no golden {path}: create it with `{update}` and review it before "
            "committing (tests/corpus/README.md, \"Golden reports\")")
        expected = path.read_text(encoding="utf-8")
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"{path.name} (golden)", f"{path.name} (now)"))
        assert not diff, (
            f"the report differs from its golden {path}; if the change is deliberate, "
            f"rewrite it with `{update}` and review the diff:\n{diff}")
