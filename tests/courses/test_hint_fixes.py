"""Hints that lead to the fix (issue 35, item 5): for flawed corpus files, an edit that does
what the failing checks' hints say (``<course>/exercise-N/corpus/fixes.toml``, grammar in
tests/corpus/README.md, "Fixes"), applied and graded, makes those checks pass.

Two tests. The first grades nothing: every fix names a flawed file and checks that file is
declared to fail, its edits apply, a follow-on hint ("Because of `X` above", or below) is
fixed with the checks it points to, a fix's ``names`` is quoted both by the hint the
learner saw (the file's golden report) and by the edit; and every (exercise, check id)
pair that a flawed file fails has a fix, except those listed in
tests/corpus/fixes_pending.txt, a list that may only shrink (a pair listed there that has
a fix is an error too). The second grades
each fixed file once (per commit, a few fixes that cover every check id; all of them
nightly): the fixed checks pass, and nothing fails that the file was not already failing
(or may fail); for a flawed file with no golden report it first grades
the file itself, for the hints to check as above. A fix added to a course's fixes.toml
is tested without editing this file.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from corpus_support import CORPUS, CorpusCase, co_firing, corpus_cases, failed_ids
from golden_support import golden_paths, has_golden

from syncgrade.authoring.cases import Edit, EditError, apply_edits
from syncgrade.courses import builtin_course
from syncgrade.grading import grade_result
from syncgrade.platforms import redact

FIXES_FILE = "fixes.toml"
FIX_KEYS = frozenset({"file", "fixes", "names", "edit"})
PENDING = CORPUS / "fixes_pending.txt"
_FOLLOW_ON = re.compile(r"^Because of ([^:]*):")
"""A follow-on hint (``grading.present.because_hint``): its leads, above or below it."""
_LEAD = re.compile(r"`([a-z0-9-]+)`")


@dataclass(frozen=True)
class Fix:
    """One ``[[fix]]`` entry: ``edits`` applied to the flawed file ``case`` make the checks
    ``fixes`` pass; ``names``: a piece of code the hint quotes and the edit contains."""

    case: CorpusCase
    fixes: frozenset[str]
    edits: tuple[Edit, ...]
    names: str
    where: str

    @property
    def id(self) -> str:
        return f"{self.case.id}:{'+'.join(sorted(self.fixes))}"

    def source(self) -> str:
        return apply_edits(self.case.path.read_text(encoding="utf-8"), self.edits,
                           name=self.where)


def _fix(entry: object, index: int, origin: Path, cases: dict[Path, CorpusCase]) -> Fix:
    """One entry, checked for its shape; AssertionError naming the file and entry."""
    where = f"{origin}: fix {index + 1}"
    assert isinstance(entry, dict) and set(entry) <= FIX_KEYS, f"{where}: keys {FIX_KEYS}"
    path = origin.parent / "flawed" / str(entry.get("file"))
    assert path in cases, f"{where}: no flawed corpus file {path.name}"
    fixes = entry.get("fixes")
    assert isinstance(fixes, list) and fixes and all(isinstance(f, str) for f in fixes), (
        f"{where}: 'fixes' must be a non-empty list of check ids")
    edits = entry.get("edit")
    assert isinstance(edits, list) and edits, f"{where}: one or more [[fix.edit]] tables"
    assert all(isinstance(e, dict) and set(e) == {"old", "new"} for e in edits), (
        f"{where}: each edit has exactly old and new")
    names = entry.get("names", "")
    assert isinstance(names, str), f"{where}: 'names' must be a string"
    return Fix(cases[path], frozenset(fixes),
               tuple(Edit(e["old"], e["new"]) for e in edits), names,
               f"{origin.name}: fix {index + 1} ({path.name})")


def read_fixes() -> list[Fix]:
    """Every fix of every exercise of the built-in course."""
    cases = {c.path: c for c in corpus_cases() if c.expected_failures}
    found = []
    for files in builtin_course().files.values():
        origin = files.corpus / FIXES_FILE
        if origin.is_file():
            entries = tomllib.loads(origin.read_text(encoding="utf-8")).get("fix", [])
            found += [_fix(entry, i, origin, cases) for i, entry in enumerate(entries)]
    return found


def read_pending() -> set[tuple[str, str]]:
    """The (exercise, check id) pairs still without a fix: ``exercise-N check-id`` lines."""
    lines = PENDING.read_text(encoding="utf-8").splitlines()
    return {(words[0], words[1]) for words in (ln.split() for ln in lines)
            if words and not words[0].startswith("#")}


def _golden_hints(case: CorpusCase) -> dict[str, str]:
    """Each failed check's hint in the file's golden report: what the learner saw."""
    report = json.loads(golden_paths(case)[1].read_text(encoding="utf-8"))
    return {c["id"]: c["hint"] or "" for c in report["checks"] if c["status"] == "failed"}


def _graded_hints(case: CorpusCase) -> dict[str, str]:
    """The same from a grade of the flawed file (one with no golden report), in the
    learner's view (:func:`syncgrade.platforms.redact`, as the goldens hold it)."""
    report = redact(grade_result(case.exercise, case.path, timeout=120,
                                 display_name=case.path.name).report)
    return {c.id: c.hint or "" for c in report.checks if c.status == "failed"}


def assert_hints_lead_to(fix: Fix, hints: dict[str, str]) -> frozenset[str]:
    """The hints the learner saw lead to ``fix``: each fixed check's hint is its own (a
    follow-on hint's root is fixed in the same entry, or is a check the file may also
    fail) and quotes ``names``, which the edit holds. Returns the roots that are such
    may-fail checks: a measured check that failed beside the declared one in this grade
    (``exercise-1/flawed/eager_einsum_on_output``'s ``interval-clean`` now and then),
    whose hint the learner then followed first, so the edit must make it pass too."""
    may_fail_roots: set[str] = set()
    for check in fix.fixes:
        assert check in hints, f"{fix.where}: {check} did not fail: {sorted(hints)}"
        cause = _FOLLOW_ON.match(hints[check])
        roots = set(_LEAD.findall(cause.group(1))) if cause else set()
        assert roots <= fix.fixes | fix.case.may_fail, (
            f"{fix.where}: {check}'s hint says to fix {sorted(roots - fix.fixes)} "
            f"first; fix both in one entry")
        may_fail_roots |= roots - fix.fixes
        if fix.names and cause is None:
            assert fix.names in hints[check], (
                f"{fix.where}: {check}'s hint does not quote {fix.names!r}: "
                f"{hints[check]!r}")
    if fix.names:
        assert any(fix.names in e.new or fix.names in e.old for e in fix.edits), (
            f"{fix.where}: the edit does not touch {fix.names!r}")
    return frozenset(may_fail_roots)


FIXES = read_fixes()


def test_fixes_are_sound_and_cover_every_failing_check() -> None:
    for fix in FIXES:
        assert fix.fixes <= fix.case.expected_failures, (
            f"{fix.where}: fixes {sorted(fix.fixes - fix.case.expected_failures)}, which "
            f"the file is not declared to fail")
        try:
            fix.source()
        except EditError as exc:
            raise AssertionError(str(exc)) from None
        if has_golden(fix.case):  # else checked where the file is graded, below
            assert_hints_lead_to(fix, _golden_hints(fix.case))
    failing = {(c.exercise, check) for c in corpus_cases() for check in c.expected_failures}
    fixed = {(f.case.exercise, check) for f in FIXES for check in f.fixes}
    pending = read_pending()
    assert sorted(failing - fixed - pending) == [], f"pairs with no fix: add one, see {PENDING}"
    assert sorted(pending & fixed) == [], f"fixed now: remove them from {PENDING}"
    assert sorted(pending - failing) == [], f"no flawed file fails these: remove from {PENDING}"


def _one_per_check(fixes: list[Fix]) -> set[str]:
    """Ids of the fixes graded in every commit's run: a small set (greedy, the fix that
    fixes most check ids not yet covered, ties by id) that fixes every check id some fix
    does, so every check's hint is followed and graded once per commit; the others are
    graded nightly (``-m slow``), to keep the suite within its time budget."""
    chosen: set[str] = set()
    covered: set[str] = set()
    remaining = sorted(fixes, key=lambda f: f.id)
    while remaining:
        best = max(remaining, key=lambda f: len(f.fixes - covered))  # first of ties
        if best.fixes <= covered:
            break
        chosen.add(best.id)
        covered |= best.fixes
        remaining.remove(best)
    return chosen


PER_COMMIT = _one_per_check(FIXES)


def test_every_check_with_a_fix_is_graded_each_commit() -> None:
    chosen = [fix for fix in FIXES if fix.id in PER_COMMIT]
    assert set().union(*(f.fixes for f in chosen)) == set().union(*(f.fixes for f in FIXES))


@pytest.mark.parametrize("fix", [
    pytest.param(fix, id=fix.id, marks=() if fix.id in PER_COMMIT else pytest.mark.slow)
    for fix in FIXES])
def test_applying_the_hint_fixes_the_file(fix: Fix) -> None:
    followed: frozenset[str] = frozenset()
    if not has_golden(fix.case):  # the hints the learner saw: one more grade
        followed = assert_hints_lead_to(fix, _graded_hints(fix.case))
    report = grade_result(fix.case.exercise, source=fix.source(), timeout=120,
                          display_name=fix.case.path.name).report
    failed = failed_ids(report)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.grading.internal_error is None, report.grading.internal_error
    statuses = {c.id: c.status for c in report.checks}
    assert all(statuses[check] == "passed" for check in fix.fixes | followed), (
        f"{fix.where}: not all of {sorted(fix.fixes | followed)} pass now\n{details}")
    still = fix.case.expected_failures - fix.fixes
    allowed = still | fix.case.may_fail | co_firing(still)
    assert failed <= allowed, f"{fix.where}: the fix broke other checks\n{details}"


def test_a_follow_on_hint_may_lead_to_a_check_the_file_may_also_fail() -> None:
    """A measured check the file may also fail (``may-fail``) that failed beside the
    declared one makes the declared check's hint a follow-on of it; that root is
    returned, for the fixed grade to pass it too. Any other root is refused."""
    [fix] = [f for f in FIXES if f.case.exercise == "exercise-1"
             and f.case.path.name == "eager_einsum_on_output.py"]
    assert "interval-clean" in fix.case.may_fail
    roots = assert_hints_lead_to(
        fix, {"sample-duration": "Because of `interval-clean` above: fix that first."})
    assert roots == {"interval-clean"}
    with pytest.raises(AssertionError, match="fix both in one entry"):
        assert_hints_lead_to(fix, {"sample-duration": "Because of `warmup-excluded` above: x"})
