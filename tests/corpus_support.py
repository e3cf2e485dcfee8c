"""The submission corpus: reading its files and their expectations (see corpus/README.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from syncgrade.models import Cause

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
_EXPECT = re.compile(r"^#\s*expect(?P<fail>-fail)?:\s*(?P<ids>.*)$")


@dataclass(frozen=True)
class CorpusCase:
    exercise: str
    path: Path
    expected_failures: frozenset[str]  # empty: full marks

    @property
    def id(self) -> str:
        return f"{self.exercise}/{self.path.parent.name}/{self.path.stem}"


def read_expectation(path: Path) -> frozenset[str]:
    """Parse the ``# expect: pass`` / ``# expect-fail: ids`` header of a corpus file."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:10]:
        match = _EXPECT.match(line.strip())
        if match:
            if match["fail"]:
                return frozenset(match["ids"].split())
            assert match["ids"].strip() == "pass", f"{path}: unknown expectation {line!r}"
            return frozenset()
    raise AssertionError(f"{path} has no '# expect:' header")


def corpus_cases() -> list[CorpusCase]:
    from syncgrade.rubric import EXERCISES

    cases = []
    for exercise in EXERCISES:
        for kind in ("correct", "flawed"):
            for path in sorted((CORPUS / exercise / kind).glob("*.py")):
                cases.append(CorpusCase(exercise, path, read_expectation(path)))
    return cases


def failed_ids(report) -> frozenset[str]:  # type: ignore[no-untyped-def]
    return frozenset(c.id for c in report.checks if c.status == "failed")


# ---------------------------------------------------------------- rounds (test_corpus.py)

RACE_CHECKS = frozenset({
    # compares measured sample durations with the calibrated probe duration
    "covers-device-work",
    # read the readiness record: was the timed output done at the stop read (a race)
    "sync-before-stop", "first-call-includes-compile", "boundary-matches",
    # about a warm-up that may still be running when the first interval starts
    "warmup-excluded",
    # matches returned numbers to clock values by value, within a tolerance
    "samples-measured",
})
"""Checks whose inputs include something that differs from one grade of the same file to
the next (durations, clock values, readiness at a read). A flawed file that fails one of
them is graded :data:`RACE_ROUNDS` times per default run. Left out, because nothing
measured can move them: ``sample-count`` (a count, a type, or a unit 1000x apart),
``times-the-call``, ``placement-excluded``, ``inputs-ready`` (which events lie between
two reads), and the value, schema and answer checks (fixed hidden inputs)."""

RACE_ROUNDS = 2
FULL_ROUNDS_DEFAULT = 5


def races(case: CorpusCase) -> bool:
    """Whether ``case``'s verdict rests on a measured race: a flawed file expected to fail a
    :data:`RACE_CHECKS` check, or any file that sleeps (a sleep stands in for a wait only
    as long as the work happens to be shorter).

    Correct files are not: each waits on its output before the stop read (waits are
    recorded when they return, so the output is ready at that read by construction), and
    its ``covers-device-work`` margin (a sample >= 0.35 x the fastest calibration run) only
    grows under load. tests/test_timing_checks.py varies clock values, durations, load and
    readiness under every race check, without a child."""
    if case.expected_failures & RACE_CHECKS:
        return True
    source = case.path.read_text(encoding="utf-8", errors="replace")
    return re.search(r"\bsleep\s*\(", source) is not None


def default_rounds(case: CorpusCase, full_rounds: int) -> int:
    """How many of ``full_rounds`` rounds of ``case`` the default run grades; the rest are
    marked ``slow`` (run by ``-m slow``, or everything with ``-m ''``)."""
    return min(full_rounds, RACE_ROUNDS if races(case) else 1)



# ---------------------------------------------------------------- the integrity corpus

INTEGRITY = CORPUS / "integrity"
LEARNER_CAUSES = tuple(c for c in get_args(Cause) if c not in ("graded", "grader_fault"))
_HEADER = re.compile(r"^#\s*(?P<key>exercise|cheat|expect-fail|expect)\s*:\s*(?P<value>.*)$")


@dataclass(frozen=True)
class IntegrityCase:
    """One cheating submission of ``tests/corpus/integrity/``: its exercise, what the
    cheat does, and either the exact set of failed check ids (``# expect-fail: ids``) or
    the report's ``cause`` (``# expect: tampered``, ``# expect: output_limit``...: a
    learner-side cause that is not ``graded``; the status is then ``failed``)."""

    exercise: str
    path: Path
    cheat: str
    expected_failures: frozenset[str]
    expected_cause: str | None

    @property
    def id(self) -> str:
        return self.path.stem


def read_integrity_header(path: Path) -> IntegrityCase:
    """Parse the comment header (first lines) of an integrity corpus file; AssertionError
    names the file when a field is missing, repeated, unknown or contradictory."""
    fields: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[:10]:
        match = _HEADER.match(line.strip())
        if match:
            assert match["key"] not in fields, f"{path}: '{match['key']}' given twice"
            fields[match["key"]] = match["value"].strip()
    for key in ("exercise", "cheat"):
        assert fields.get(key), f"{path}: no '# {key}:' header"
    assert ("expect" in fields) != ("expect-fail" in fields), (
        f"{path}: give exactly one of '# expect: CAUSE' and '# expect-fail: ids'")
    if "expect" in fields:
        assert fields["expect"] in LEARNER_CAUSES, (
            f"{path}: unknown expectation {fields['expect']!r} (one of {LEARNER_CAUSES})")
    failures = frozenset(fields.get("expect-fail", "").split())
    assert "expect" in fields or failures, f"{path}: '# expect-fail:' names no check"
    return IntegrityCase(fields["exercise"], path, fields["cheat"], failures,
                         fields.get("expect"))


def integrity_cases() -> list[IntegrityCase]:
    return [read_integrity_header(path) for path in sorted(INTEGRITY.glob("*.py"))]
