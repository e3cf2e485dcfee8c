"""exercise-2's answer key is what the grader's own tracer measures for the stub's snippets.

The snippets are read from the stub's docstring (what learners see), run through the real
child as grader-side functions, and each one's interval phases must equal the rubric's
hard-coded key. If a snippet, the tracer or the phase rules change, this fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import snippets_support as snippets
from trace_support import trace

from syncgrade.analysis import PHASES
from syncgrade.courses import builtin_course

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "src" / "syncgrade" / "course"  # the built-in course
STUB = COURSE / "exercise-2" / "stub.py"
SOLUTION = COURSE / "exercise-2" / "solution.py"
SNIPPETS_MD = COURSE / "exercise-2" / "corpus" / "SNIPPETS.md"
exercise_2 = builtin_course().module("exercise-2")  # the declaration: its answer key


def _stub_snippets() -> dict[str, str]:
    return snippets.parse_snippets(snippets.stub_docstring(STUB.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def derived() -> dict[str, frozenset[str]]:
    source = snippets.grader_source(_stub_snippets())
    frames = trace(snippets.SNIPPET_JOB, source, display_name="exercise2_snippets.py",
                          timeout=120)
    return snippets.measured_phases(frames)


def test_stub_shows_four_snippets() -> None:
    assert list(_stub_snippets()) == ["A", "B", "C", "D"]


@pytest.mark.parametrize("letter", ["A", "B", "C", "D"])
def test_key_equals_traced_phases(derived: dict[str, frozenset[str]], letter: str) -> None:
    assert derived[letter] == exercise_2.KEY[letter]


def test_key_uses_only_the_vocabulary() -> None:
    for phases in exercise_2.KEY.values():
        assert phases <= set(PHASES)
    assert exercise_2.SYNC_POINT_KEY in exercise_2.SYNC_POINT_CHOICES


def test_solution_shows_the_same_snippets() -> None:
    solution = snippets.parse_snippets(
        snippets.stub_docstring(SOLUTION.read_text(encoding="utf-8")))
    assert solution == _stub_snippets()


def test_snippets_md_matches_the_stub() -> None:
    blocks = re.findall(r"```python\n(.*?)```", SNIPPETS_MD.read_text(encoding="utf-8"), re.S)
    shown = {code.strip() for code in blocks if "start = time.perf_counter()" in code}
    assert shown == {code.strip() for code in _stub_snippets().values()}


def test_stub_vocabulary_matches_the_grader() -> None:
    namespace: dict[str, object] = {}
    source = STUB.read_text(encoding="utf-8").split('if __name__ == "__main__":')[0]
    exec(compile(source, str(STUB), "exec"), namespace)
    assert namespace["PHASES"] == PHASES
    assert namespace["SYNC_POINT_CHOICES"] == exercise_2.SYNC_POINT_CHOICES
