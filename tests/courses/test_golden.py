"""The golden reports' bookkeeping and masks, without a grade (the comparisons themselves
run inside tests/courses/test_corpus.py's grades; tests/golden_support.py)."""

from __future__ import annotations

from typing import Any

import pytest
from builders import printed_report
from corpus_support import corpus_cases
from golden_support import (
    GOLDEN,
    LEFT_OUT,
    MEASURED_FACTS,
    UPDATE_ENV,
    golden_json,
    golden_paths,
    golden_text,
    has_golden,
    masked_words,
)

from syncgrade.courses import builtin_course


def test_every_file_of_the_golden_set_has_both_goldens_and_no_golden_is_stray() -> None:
    cases = corpus_cases()
    expected = {path for case in cases if has_golden(case) for path in golden_paths(case)}
    missing = sorted(str(p) for p in expected if not p.is_file())
    assert not missing, (f"goldens missing (create them with `{UPDATE_ENV}=1 pytest "
                         f"tests/courses/test_corpus.py -k ID`): {missing}")
    on_disk = {path for files in builtin_course().files.values()
               for path in (files.corpus / GOLDEN).rglob("*") if path.is_file()}
    assert on_disk - expected == set(), "goldens of no corpus file in the golden set"
    assert set(LEFT_OUT) <= {case.id for case in cases}, "LEFT_OUT names no corpus file"
    assert len(LEFT_OUT) * 5 < len(cases), "most corpus files keep a golden"


@pytest.mark.parametrize(("words", "masked"), [
    ("PASSED  score 12/12  ·  All checks passed.  (graded in 1.4 s + start-up)",
     "PASSED  score 12/12  ·  All checks passed.  (graded in N s + start-up)"),
    ("about 49 ms, your shortest sample was 0.03 ms (0% of the work).",
     "about N ms, your shortest sample was N ms (N% of the work)."),
    ("In interval 3, the output was still being computed",
     "In interval N, the output was still being computed"),
    ("`warm_s`: in interval 2, the output", "`warm_s`: in interval N, the output"),
    ("but warm interval 2 measured dispatch", "but warm interval N measured dispatch"),
    ("about 20 ms, nothing in sample 1 waited for the output before the timer stopped on "
     "line 9: its length is dispatch, the machine's load or a pause, not the device work "
     "(your shortest sample was 0.12 ms, 1% of the work).",
     "about N ms, nothing in sample N waited for the output before the timer stopped on "
     "line 9: its length is dispatch, the machine's load or a pause, not the device work "
     "(your shortest sample was N ms, N% of the work)."),
    ("`compile_estimate_s` is -0.126447, but `first_call_median_s` minus `warm_median_s` "
     "is 1.2e-05.", "`compile_estimate_s` is N, but `first_call_median_s` minus "
     "`warm_median_s` is N."),
    ("E1206 03:03:50.408884      20 common_pjrt_client.cc:1622] failed",
     "EN      N common_pjrt_client.cc:1622] failed"),
    # A line break inside the phrase, as in the terminal text.
    ("NOT YET  score 8/12  ·  done.  (graded in 2.5 s +\nstart-up)",
     "NOT YET  score 8/12  ·  done.  (graded in N s +\nstart-up)"),
    ("failed.  In\n      interval 12, the", "failed.  In\n      interval N, the"),
    # numpy-match's figures, computed from values on this CPU (its BLAS decides the digits).
    ("14775 of 176640 values differ from an independent NumPy reference; the largest "
     "difference is 2.4e-04 where float32 rounding allows at most 4.7e-05.",
     "N of 176640 values differ from an independent NumPy reference; the largest "
     "difference is N where float32 rounding allows at most N."),
    ("the largest difference is 1.2e+06 where float32 rounding allows at most\n4.4e+01.",
     "the largest difference is N where float32 rounding allows at most\nN."),
])
def test_measured_amounts_are_masked(words: str, masked: str) -> None:
    assert masked_words(words) == masked


@pytest.mark.parametrize("words", [
    "Interval 1 includes compiling the function: no warm-up call of `fn` ran before it",
    "Timed interval 2 contains 3 calls: one sample should time one call.",
    "Each of the 6 intervals waits; line 12 stops the timer (line 12).",
    "your samples look like milliseconds: they are about 1000 times the intervals",
    "whose results are off by about 5% (its program, `w` and `w_host` were exactly",
    "Your file did not finish loading in 60 s.",
    "`warm_median_s` is a NumPy float32 scalar, which JSON cannot hold",
])
def test_what_is_not_measured_stays_compared(words: str) -> None:
    assert masked_words(words) == words


def test_the_learners_output_is_compared_without_its_digits() -> None:
    """Two grades of one file on two CPUs: NumPy's assertion text in the learner's output
    prints values to 17 digits, and the last ones follow the CPU's BLAS (an AMD EPYC
    printed 0.24901416897773743 where another CPU printed 0.24901419878005981). The
    goldens hold neither; the words around them stay compared."""
    here = " [0, 1]: 0.2492632120847702 (ACTUAL), 0.24901419878005981\n"
    there = " [0, 1]: 0.2492632120847702 (ACTUAL), 0.24901416897773743\n"
    assert golden_json(printed_report(here)) == golden_json(printed_report(there))
    assert golden_text(printed_report(here), None) == golden_text(printed_report(there), None)
    assert '"text": " [N, N]: N.N (ACTUAL), N.N\\n"' in golden_json(printed_report(here))
    assert golden_json(printed_report("ACTUAL: 1\n")) != golden_json(printed_report("DESIRED: 1\n"))


def test_numpy_match_facts_are_masked() -> None:
    assert {"largest_error", "allowed_there"} <= MEASURED_FACTS


def test_a_host_work_segment_is_left_out_and_the_picture_renumbered() -> None:
    from golden_support import _without_host_work

    def event(kind: str) -> dict[str, object]:
        return {"kind": kind, "label": kind}

    evidence: dict[str, Any] = {
        "timeline": {"entries": [{"what": "timer start"}, {"what": "host work"},
                                 {"what": "call"}, {"what": "timer stop"}]},
        "interval": {"host": [event("timer start"), event("host work"), event("call"),
                              event("timer stop")],
                     "device": [{"dispatched_at": 2, "ready_at": None}], "start": 0,
                     "stop": 3, "flaws": [{"at": 1}, {"at": 3}]}}
    _without_host_work(evidence)
    assert [e["what"] for e in evidence["timeline"]["entries"]] == [
        "timer start", "call", "timer stop"]
    picture = evidence["interval"]
    assert [e["kind"] for e in picture["host"]] == ["timer start", "call", "timer stop"]
    assert (picture["start"], picture["stop"], picture["device"][0]["dispatched_at"],
            picture["flaws"]) == (0, 2, 1, [{"at": 2}])
