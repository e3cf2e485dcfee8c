"""Mutants: known-wrong variants of an exercise's solution, each declaring what it fails.

A mutant lives at ``solutions/<exercise>/mutants/<name>.py``. Its first lines are comments:

.. code-block:: python

    # mutant: the timer stops before the wait
    # must-fail: sync-before-stop covers-device-work

``mutant`` says in one line what is wrong (the mistake a learner might make); ``must-fail``
lists the EXACT set of check ids that grading the file must fail (every other check passes
or is skipped). Both are required, once each, within the first :data:`HEADER_LINES` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HEADER_LINES = 15
_HEADER = re.compile(r"^#\s*(?P<key>mutant|must-fail)\s*:\s*(?P<value>.*)$")


class MutantError(ValueError):
    """A mutant file whose header is missing, repeated or empty (one line, names the file)."""


@dataclass(frozen=True)
class Mutant:
    """One mutant file and what it declares."""

    name: str
    path: Path
    what: str
    must_fail: frozenset[str]


def read_mutant(path: Path) -> Mutant:
    """Parse a mutant's header; :class:`MutantError` says what is wrong with it."""
    fields: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()[:HEADER_LINES]
    except (OSError, UnicodeDecodeError) as exc:
        raise MutantError(f"{path.name}: cannot be read ({exc.__class__.__name__})") from None
    for line in lines:
        match = _HEADER.match(line.strip())
        if match:
            if match["key"] in fields:
                raise MutantError(f"{path.name}: '# {match['key']}:' given twice")
            fields[match["key"]] = match["value"].strip()
    for key in ("mutant", "must-fail"):
        if not fields.get(key):
            raise MutantError(f"{path.name}: no '# {key}: ...' line in its first "
                              f"{HEADER_LINES} lines")
    return Mutant(path.stem, path, fields["mutant"], frozenset(fields["must-fail"].split()))


def mutant_dir(root: Path, exercise_id: str) -> Path:
    return root / "solutions" / exercise_id / "mutants"


def mutant_paths(root: Path, exercise_id: str) -> list[Path]:
    """The exercise's mutant files, sorted by name (``_``-prefixed files are helpers)."""
    folder = mutant_dir(root, exercise_id)
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
