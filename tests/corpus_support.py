"""The submission corpus: reading its files and their expectations (see corpus/README.md).

Each exercise's corpus lives in its course folder (``<course>/<id>/corpus/{correct,flawed}``,
docs/authoring.md); the suite grades the built-in course's (``exercises/``), so
an instructor adds corpus files to a course folder and never edits a test. The integrity
corpus (``tests/corpus/integrity/``) is syncgrade's own and stays here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from syncgrade.authoring.cases import (
    Case,
    CaseError,
    co_firing,
    corpus_case,
    integrity_case,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"  # the integrity corpus and its README


@dataclass(frozen=True)
class CorpusCase:
    exercise: str
    path: Path
    expected_failures: frozenset[str]  # empty: full marks
    may_fail: frozenset[str] = frozenset()  # '# may-fail': may fail besides them, or pass

    @property
    def id(self) -> str:
        return f"{self.exercise}/{self.path.parent.name}/{self.path.stem}"

    @property
    def co_firing(self) -> frozenset[str]:
        """The checks this file may fail besides its expected ones by the co-firing rule
        (``syncgrade.authoring.cases.CO_FIRING``), not by a header of its own."""
        return co_firing(self.expected_failures)

    @property
    def may_also_fail(self) -> frozenset[str]:
        """Every check this file may fail, or pass, besides its expected failures: its
        header's ``may-fail`` and the co-firing rule's."""
        return self.may_fail | self.co_firing


def read_case(path: Path) -> Case:
    """The header of a corpus file (``syncgrade.authoring.cases``: ``# style:`` and
    ``# expect: pass``, or ``# flaw:`` and ``# expect-fail: ids``); AssertionError names
    the file and what is wrong, or a file whose kind is not its folder's."""
    try:
        case = corpus_case(path)
    except CaseError as exc:
        raise AssertionError(str(exc)) from None
    assert case.kind == path.parent.name, f"{path}: a {case.kind} file in {path.parent.name}/"
    return case


def read_expectation(path: Path) -> frozenset[str]:
    """The exact set of failed check ids a corpus file declares (empty: full marks)."""
    return read_case(path).expected_failures


def corpus_dir(exercise: str) -> Path:
    """The exercise's corpus folder in the built-in course."""
    from syncgrade.courses import builtin_course

    return builtin_course().folder(exercise).corpus


def corpus_cases() -> list[CorpusCase]:
    """Every corpus file of every exercise folder of the built-in course, discovered."""
    from syncgrade.courses import CORPUS_KINDS, builtin_course

    cases = []
    for exercise, files in builtin_course().files.items():
        for kind in CORPUS_KINDS:
            for path in files.corpus_files(kind):
                cases.append(CorpusCase(exercise, path, read_expectation(path),
                                        read_case(path).may_fail))
    return cases


def failed_ids(report) -> frozenset[str]:  # type: ignore[no-untyped-def]
    return frozenset(c.id for c in report.checks if c.status == "failed")


# ---------------------------------------------------------------- rounds (test_corpus.py)

RACE_CHECKS = frozenset({
    # compares measured sample durations with the calibrated probe duration
    "covers-device-work",
    # compares measured sample durations with the grader's own runs of the call
    "sample-duration",
    # read the readiness record: was the timed output done at the stop read (a race)
    "sync-before-stop", "first-call-includes-compile", "boundary-matches",
    # about a warm-up that may still be running when the first interval starts
    "warmup-excluded",
    # matches returned numbers to clock values by value, within a tolerance
    "samples-measured",
})
"""Checks whose inputs include something that differs from one grade of the same file to
the next (durations, clock values, readiness at a read). A flawed file that fails one of
them is graded :data:`RACE_ROUNDS` times per default run (1: the per-commit run is at its
10-minute budget, and tests/courses/test_stability.py grades the core race files of
exercise-1 twice more; the nightly ``-m slow`` run grades every file
:data:`FULL_ROUNDS_DEFAULT` times). Left out, because nothing
measured can move them: ``sample-count`` (a count, a type, or a unit 1000x apart),
``times-the-call``, ``placement-excluded``, ``inputs-ready`` (which events lie between
two reads), and the value, schema and answer checks (fixed hidden inputs)."""

RACE_ROUNDS = 1
FULL_ROUNDS_DEFAULT = 5


def races(case: CorpusCase) -> bool:
    """Whether ``case``'s verdict rests on a measured race: a flawed file expected to fail a
    :data:`RACE_CHECKS` check, or any file that sleeps (a sleep stands in for a wait only
    as long as the work happens to be shorter).

    Correct files are not: each waits on its output before the stop read (waits are
    recorded when they return, so the output is ready at that read by construction), and
    its ``covers-device-work`` margin (a sample >= 0.35 x the fastest calibration run) only
    grows under load. tests/rubric/test_timing_checks.py varies clock values, durations, load and
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
    """Parse the comment header of an integrity corpus file (``syncgrade.authoring.cases``);
    AssertionError names the file when a field is missing, repeated, unknown or
    contradictory."""
    try:
        case = integrity_case(path)
    except CaseError as exc:
        raise AssertionError(str(exc)) from None
    return IntegrityCase(case.exercise, path, case.description, case.expected_failures,
                         case.expected_cause)


def integrity_cases() -> list[IntegrityCase]:
    return [read_integrity_header(path) for path in sorted(INTEGRITY.glob("*.py"))]


def copy_whole_course(target: Path, *ignore: str) -> Path:
    """The built-in course copied to ``target`` as one self-contained course folder: each
    exercise folder holds its own ``solution.py`` (the built-in course keeps them in
    ``solutions/``, which its ``course.toml`` names) and ``course.toml`` keeps only the
    title. ``ignore``: :func:`shutil.ignore_patterns` of what to leave out."""
    import shutil

    from syncgrade.courses import COURSE_FILE, builtin_course

    course = builtin_course()
    shutil.copytree(course.root, target, ignore=shutil.ignore_patterns(
        "__pycache__", "submission.py", *ignore))
    (target / COURSE_FILE).write_text(f"title = {course.title!r}\n", encoding="utf-8")
    for exercise_id, files in course.files.items():
        if (target / exercise_id).is_dir() and files.solution.is_file():
            shutil.copy(files.solution, target / exercise_id / "solution.py")
    return target
