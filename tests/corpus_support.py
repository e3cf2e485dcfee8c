"""The submission corpus: reading its files and their expectations (see corpus/README.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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

