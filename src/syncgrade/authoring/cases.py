"""Cases: one grammar for what grading a file must come to, and one parser for it.

Three kinds of file state an expectation, with the same keys:

- **corpus files** (``<course>/exercise-N/corpus/correct/*.py`` and ``flawed/*.py``) and
  **integrity files** (``tests/corpus/integrity/*.py``) open with a comment header,
  one ``# key: value`` line per key; a value may go on over lines that start with ``#``
  and at least two spaces (an indented continuation)::

      # flaw: the timer stops before the wait
      # expect-fail: sync-before-stop covers-device-work

  A corpus file has one of ``style`` (a correct file, then ``expect: pass``) or ``flaw``
  (a flawed file, then ``expect-fail: ID ...``). An integrity file has ``exercise``,
  ``cheat``, and ``expect: CAUSE`` (a learner-side report cause, e.g. ``tampered``) or
  ``expect-fail: ID ...``.
- **mutants** are entries of ``<course>/exercise-N/mutants.toml``: a ``name``, the
  ``flaw``, the ``expect-fail`` ids (a list) and one or more ``edit`` tables, each an
  ``old`` text and the ``new`` text that replaces it in the *current* solution::

      [[mutant]]
      name = "no_wait"
      flaw = "no wait on the output before the timer stops"
      expect-fail = ["sync-before-stop", "covers-device-work"]

        [[mutant.edit]]
        old = \"\"\"
              out.block_until_ready()
      \"\"\"
        new = ""

  Edits apply in order; each ``old`` must occur exactly once in the text at the time it
  is applied (:func:`apply_edits`), so an edit the solution has moved away from is an
  error naming the mutant and the edit, never a silently different mutant.

A missing, repeated, empty or unknown key is a :class:`CaseError` naming the file (and
the mutant): nothing is guessed.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from syncgrade.models import Cause

Kind = Literal["correct", "flawed", "integrity", "mutant"]
HEADER_KEYS = ("exercise", "style", "flaw", "cheat", "expect", "expect-fail", "may-fail",
               "tpu-may-pass", "tpu-may-fail")
"""Every key a comment header may have."""
MUTANT_KEYS = ("name", "flaw", "expect-fail", "edit")
EDIT_KEYS = ("old", "new")
LEARNER_CAUSES = tuple(c for c in get_args(Cause) if c not in ("graded", "grader_fault"))
"""What ``expect:`` may name besides ``pass``: a report cause that is the learner's."""

_KEY_LINE = re.compile(r"^#\s?(?P<key>[a-z][a-z-]*)\s*:(?P<value>.*)$")
_CONTINUATION = re.compile(r"^#\s{2,}(?P<text>\S.*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CaseError(ValueError):
    """A header or mutant entry that breaks the grammar (one line, names the file)."""


class EditError(CaseError):
    """A mutant edit that does not apply: its ``old`` text is not in the text exactly once."""


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (which must occur exactly once) by ``new``. ``where``: the
    ``mutants.toml:line`` of its ``old`` text, when known (an edit that does not apply
    names it)."""

    old: str
    new: str
    where: str = field(default="", compare=False)


CO_FIRING: dict[str, frozenset[str]] = {"interval-clean": frozenset({"sample-duration"})}
"""A flawed file (or mutant) expected to fail a key may also fail each of its values, or
pass them, with no ``may-fail`` of its own (tests/corpus/README.md, "Co-firing checks"):
the same extra time measured twice. Host work inside an interval is unexplained CPU time
(``interval-clean``) and a longer sample (``sample-duration``, against a bound measured in
the same run); whether that work outlasts the bound depends on its size and the machine's
load, not on a second flaw. One way only: a file expected to fail ``sample-duration`` (a
mechanism twin, whose extra time no other check sees) must fail it."""


def co_firing(expected_failures: frozenset[str]) -> frozenset[str]:
    """The checks :data:`CO_FIRING` lets a file expected to fail ``expected_failures``
    fail, or pass, besides them (never one of them: an expected failure stays required)."""
    extra: set[str] = set()
    for cause, also in CO_FIRING.items():
        if cause in expected_failures:
            extra |= also
    return frozenset(extra) - expected_failures


@dataclass(frozen=True)
class Case:
    """One expectation: a corpus file, an integrity file, or a mutant.

    ``expected_failures`` is the exact set of failed check ids; empty with no
    ``expected_cause`` means full marks (``expect: pass``). ``may_fail`` (a flawed corpus
    file's ``# may-fail: ID ...``) are checks that may fail besides them, or pass: a
    measured check that the same flaw can trip, as ``sample-duration`` does when the
    flaw also lengthens the samples past what the call explains. ``expected_cause`` is an
    integrity file's learner-side report cause (``expect: tampered``...).
    ``tpu_may_pass`` (a flawed corpus file's ``# tpu-may-pass: ID ...``): some of its
    ``expected_failures`` that may pass when it is graded on a TPU (its machines: a TPU
    backend, gVisor's 10 ms CPU clock), where the flaw is not measurable; every other
    backend holds it to ``expected_failures`` (docs/accelerators.md says why, per file).
    ``tpu_may_fail`` (a corpus file's ``# tpu-may-fail: ID ...``, correct or flawed):
    checks that may fail besides ``expected_failures`` when it is graded on a TPU, where
    the file's own code does not hold (its check's tolerance assumes the CPU's float32
    products); every other backend holds it to ``expected_failures``.
    """

    name: str
    kind: Kind
    description: str
    expected_failures: frozenset[str] = frozenset()
    expected_cause: str | None = None
    exercise: str = ""
    path: Path | None = None  # the file; for a mutant, its mutants.toml
    edits: tuple[Edit, ...] = ()
    may_fail: frozenset[str] = frozenset()
    tpu_may_pass: frozenset[str] = frozenset()
    tpu_may_fail: frozenset[str] = frozenset()

    @property
    def expects_pass(self) -> bool:
        return not self.expected_failures and self.expected_cause is None

    def header(self) -> str:
        """The comment header that states this case (a mutant's reads as a flawed file's)."""
        key = {"correct": "style", "flawed": "flaw", "mutant": "flaw",
               "integrity": "cheat"}[self.kind]
        lines = [f"# exercise: {self.exercise}"] if self.kind == "integrity" else []
        lines.append(f"# {key}: {self.description}")
        if self.expected_failures:
            lines.append(f"# expect-fail: {' '.join(sorted(self.expected_failures))}")
        else:
            lines.append(f"# expect: {self.expected_cause or 'pass'}")
        return "\n".join(lines) + "\n"

    def apply(self, solution: str) -> str:
        """A mutant's source: its edits applied to ``solution`` (:class:`EditError`)."""
        return apply_edits(solution, self.edits, name=self.name)


# ------------------------------------------------------------------ comment headers

def parse_header(text: str, origin: str) -> dict[str, str]:
    """The ``# key: value`` lines that open ``text`` (up to its first line that is not a
    comment), continuations joined with one space. :class:`CaseError` (prefixed with
    ``origin``) for an unknown, repeated or empty key, or a comment line that is neither a
    key line nor an indented continuation."""
    fields: dict[str, str] = {}
    key = ""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip()
        if not line.startswith("#"):
            break
        if match := _KEY_LINE.match(line):
            key = match["key"]
            if key not in HEADER_KEYS:
                raise CaseError(f"{origin}: line {number}: unknown key '# {key}:' "
                                f"(known: {', '.join(HEADER_KEYS)})")
            if key in fields:
                raise CaseError(f"{origin}: '# {key}:' given twice")
            fields[key] = match["value"].strip()
        elif key and (more := _CONTINUATION.match(line)):
            fields[key] = f"{fields[key]} {more['text'].strip()}".strip()
        else:
            raise CaseError(f"{origin}: line {number}: a header line is '# key: value' or "
                            f"an indented continuation ('#' and 2+ spaces), not {line!r}")
    for key, value in fields.items():
        if not value:
            raise CaseError(f"{origin}: '# {key}:' is empty")
    return fields


def _only(fields: dict[str, str], allowed: tuple[str, ...], origin: str) -> None:
    extra = [k for k in fields if k not in allowed]
    if extra:
        raise CaseError(f"{origin}: '# {extra[0]}:' does not belong here "
                        f"(this header's keys: {', '.join(allowed)})")


def _expectation(fields: dict[str, str], origin: str,
                 causes: tuple[str, ...]) -> tuple[frozenset[str], str | None]:
    """(failed ids, cause) from exactly one of ``expect`` and ``expect-fail``; ``expect``
    is ``pass`` or one of ``causes``."""
    if ("expect" in fields) == ("expect-fail" in fields):
        raise CaseError(f"{origin}: give exactly one of '# expect: ...' and "
                        "'# expect-fail: ids'")
    if "expect-fail" in fields:
        return frozenset(fields["expect-fail"].split()), None
    value = fields["expect"]
    if value == "pass" and "pass" in causes:
        return frozenset(), None
    if value not in causes:
        raise CaseError(f"{origin}: unknown expectation '# expect: {value}' "
                        f"(one of {', '.join(causes)})")
    return frozenset(), value


def corpus_case(path: Path) -> Case:
    """A corpus file: ``style`` + ``expect: pass``, or ``flaw`` + ``expect-fail: ids``.
    Its exercise is the exercise folder it lies in (``<id>/corpus/correct/``; the folder
    above ``correct/`` or ``flawed/`` when that is not ``corpus``)."""
    origin = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise CaseError(f"{origin}: cannot be read ({exc.__class__.__name__})") from None
    fields = parse_header(text, origin)
    _only(fields, ("style", "flaw", "expect", "expect-fail", "may-fail", "tpu-may-pass",
                   "tpu-may-fail"), origin)
    if ("style" in fields) == ("flaw" in fields):
        raise CaseError(f"{origin}: give exactly one of '# style: ...' (a correct file) "
                        "and '# flaw: ...' (a flawed one)")
    failures, _ = _expectation(fields, origin, ("pass",))
    kind: Kind = "correct" if "style" in fields else "flawed"
    if kind == "correct" and failures:
        raise CaseError(f"{origin}: a '# style:' file is correct: '# expect: pass'")
    if kind == "flawed" and not failures:
        raise CaseError(f"{origin}: a '# flaw:' file fails: '# expect-fail: ids'")
    may_fail = frozenset(fields.get("may-fail", "").split())
    if "may-fail" in fields and (kind == "correct" or not may_fail or may_fail & failures):
        raise CaseError(f"{origin}: '# may-fail: ids' names checks a '# flaw:' file may "
                        "fail besides its '# expect-fail' ones (none of them)")
    tpu_may_pass = frozenset(fields.get("tpu-may-pass", "").split())
    if "tpu-may-pass" in fields and not tpu_may_pass <= failures:
        raise CaseError(f"{origin}: '# tpu-may-pass: ids' names '# expect-fail' checks "
                        "that may pass on a TPU (only those)")
    tpu_may_fail = frozenset(fields.get("tpu-may-fail", "").split())
    if "tpu-may-fail" in fields and tpu_may_fail & failures:
        raise CaseError(f"{origin}: '# tpu-may-fail: ids' names checks that may fail on a "
                        "TPU besides the '# expect-fail' ones (none of them)")
    return Case(path.stem, kind, fields["style" if kind == "correct" else "flaw"],
                failures, None, _exercise_of(path), path, may_fail=may_fail,
                tpu_may_pass=tpu_may_pass, tpu_may_fail=tpu_may_fail)


def _exercise_of(path: Path) -> str:
    above = path.parent.parent
    return above.parent.name if above.name == "corpus" else above.name


def integrity_case(path: Path) -> Case:
    """An integrity file: ``exercise``, ``cheat``, and ``expect: CAUSE`` (a learner-side
    cause of :data:`LEARNER_CAUSES`) or ``expect-fail: ids``."""
    origin = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise CaseError(f"{origin}: cannot be read ({exc.__class__.__name__})") from None
    fields = parse_header(text, origin)
    _only(fields, ("exercise", "cheat", "expect", "expect-fail"), origin)
    for key in ("exercise", "cheat"):
        if key not in fields:
            raise CaseError(f"{origin}: no '# {key}:' line")
    failures, cause = _expectation(fields, origin, LEARNER_CAUSES)
    return Case(path.stem, "integrity", fields["cheat"], failures, cause,
                fields["exercise"], path)


# ------------------------------------------------------------------ mutants.toml

def load_mutant_table(text: str, origin: str) -> list[Any]:
    """The ``[[mutant]]`` entries of a mutants.toml text, unchecked; :class:`CaseError` when
    it is not TOML, has a top-level key other than ``mutant``, or no entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"{origin}: not valid TOML ({exc})") from None
    extra = [k for k in data if k != "mutant"]
    if extra:
        raise CaseError(f"{origin}: unknown top-level key {extra[0]!r} (only [[mutant]])")
    entries = data.get("mutant")
    if not isinstance(entries, list) or not entries:
        raise CaseError(f"{origin}: no [[mutant]] entry")
    return entries


def entry_label(entry: Any, index: int) -> str:
    """How an entry is named in messages: its name, else its position."""
    name = entry.get("name") if isinstance(entry, dict) else None
    return name if isinstance(name, str) and name else f"#{index + 1}"


def edit_lines(text: str) -> list[list[int]]:
    """For each ``[[mutant]]`` entry of a mutants.toml text, in order, the line of each of
    its ``[[mutant.edit]]`` tables' ``old`` key (the table's header line when its ``old``
    is not found below it). tomllib keeps no line numbers; an edit written inline
    (``edit = [{old = ..., new = ...}]``) gets none."""
    found: list[list[int]] = []
    awaiting_old = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s*\[\[\s*mutant\s*\]\]", line):
            found.append([])
            awaiting_old = False
        elif re.match(r"\s*\[\[\s*mutant\.edit\s*\]\]", line) and found:
            found[-1].append(number)
            awaiting_old = True
        elif awaiting_old and re.match(r"\s*old\s*=", line):
            found[-1][-1] = number
            awaiting_old = False
    return found


def mutant_case(entry: Any, index: int, origin: str, exercise: str = "",
                path: Path | None = None, lines: Sequence[int] = ()) -> Case:
    """One ``[[mutant]]`` entry (the ``index``-th) as a :class:`Case`; :class:`CaseError`
    naming the file and the mutant for a missing, unknown or ill-typed key. ``lines``:
    the line of each edit's ``old`` in the file (:func:`edit_lines`)."""
    where = f"{origin}: mutant {entry_label(entry, index)}"
    if not isinstance(entry, dict):
        raise CaseError(f"{where}: not a table")
    unknown = [k for k in entry if k not in MUTANT_KEYS]
    if unknown:
        raise CaseError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(MUTANT_KEYS)})")
    missing = [k for k in MUTANT_KEYS if k not in entry]
    if missing:
        raise CaseError(f"{where}: no {missing[0]!r}")
    name, flaw, fails, edits = (entry[k] for k in MUTANT_KEYS)
    if not isinstance(name, str) or not _NAME.match(name):
        raise CaseError(f"{where}: 'name' must be an identifier (it names {name!r}.py)")
    if not isinstance(flaw, str) or not flaw.strip() or "\n" in flaw.strip():
        raise CaseError(f"{where}: 'flaw' must be one non-empty line")
    if (not isinstance(fails, list) or not fails
            or not all(isinstance(i, str) and i and not re.search(r"\s", i) for i in fails)):
        raise CaseError(f"{where}: 'expect-fail' must be a non-empty list of check ids")
    if not isinstance(edits, list) or not edits:
        raise CaseError(f"{where}: 'edit' must be one or more [[mutant.edit]] tables")
    parsed = []
    for number, edit in enumerate(edits, 1):
        if not isinstance(edit, dict) or set(edit) != set(EDIT_KEYS):
            keys = sorted(edit) if isinstance(edit, dict) else type(edit).__name__
            raise CaseError(f"{where}: edit {number} must have exactly the keys old and new "
                            f"(has {keys})")
        if not all(isinstance(edit[k], str) for k in EDIT_KEYS) or not edit["old"]:
            raise CaseError(f"{where}: edit {number}: old (non-empty) and new must be strings")
        line = lines[number - 1] if number <= len(lines) else 0
        parsed.append(Edit(edit["old"], edit["new"], f"{origin}:{line}" if line else ""))
    return Case(name, "mutant", flaw.strip(), frozenset(fails), None, exercise, path,
                tuple(parsed))


def parse_mutants(text: str, origin: str, exercise: str = "",
                  path: Path | None = None) -> list[Case]:
    """Every mutant of a mutants.toml text, strictly: the first problem (also a name given
    twice) raises :class:`CaseError`."""
    lines = edit_lines(text)
    cases = [mutant_case(e, i, origin, exercise, path, lines[i] if i < len(lines) else ())
             for i, e in enumerate(load_mutant_table(text, origin))]
    names = [c.name for c in cases]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CaseError(f"{origin}: mutant {twice[0]} given twice")
    return cases


# ------------------------------------------------------------------ edits

def _occurrences(text: str, part: str) -> int:
    count, start = 0, text.find(part)
    while start != -1:
        count += 1
        start = text.find(part, start + 1)
    return count


def apply_edits(source: str, edits: tuple[Edit, ...] | list[Edit], *, name: str = "") -> str:
    """``source`` with ``edits`` applied in order. Each ``old`` must occur exactly once in
    the text at the time it is applied; else :class:`EditError`, naming where the edit is
    written (``mutants.toml:line``, when known), the mutant (``name``), the edit (its
    number and the first line of its ``old``) and the nearest text of the solution
    (:func:`nearest`)."""
    text = source
    for number, edit in enumerate(edits, 1):
        count = _occurrences(text, edit.old)
        if count != 1:
            first = next((ln.strip() for ln in edit.old.splitlines() if ln.strip()), edit.old)
            found = "is not in" if not count else f"occurs {count} times in"
            raise EditError(f"{edit.where + ': ' if edit.where else ''}"
                            f"{name + ': ' if name else ''}edit {number} of {len(edits)} "
                            f"does not apply: its old text ({first!r}...) {found} the "
                            f"solution (it must occur exactly once){nearest(edit.old, text)}")
        text = text.replace(edit.old, edit.new, 1)
    return text


def nearest(old: str, text: str) -> str:
    """Where ``old`` went in ``text``: ``"; nearest: line 12 'out.block_until_ready()'
    (for 'out.block_until_ready()  # wait')"`` for the first line of ``old`` that ``text``
    lacks and the most similar line of ``text``; the lines where ``old`` occurs when it
    occurs more than once; what differs when each line is there but not together."""
    lines = text.splitlines()
    count = _occurrences(text, old)
    if count > 1:
        starts = [text[:i].count("\n") + 1 for i in range(len(text)) if text.startswith(old, i)]
        return f"; it occurs at lines {', '.join(map(str, starts))}: make it longer"
    stripped = [ln.strip() for ln in lines]
    for wanted in (ln.strip() for ln in old.splitlines() if ln.strip()):
        if any(wanted in ln for ln in stripped):
            continue
        close = difflib.get_close_matches(wanted, stripped, n=1, cutoff=0.5)
        if not close:
            return f"; nothing in the solution is close to {wanted!r}"
        return (f"; nearest: line {stripped.index(close[0]) + 1} {close[0]!r} (for "
                f"{wanted!r})")
    return ("; each of its lines is in the solution, but not together as written (check "
            "indentation and blank lines)")
