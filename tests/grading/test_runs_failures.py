"""A broken submission is graded, never a grader traceback: `runs` names the line."""

from __future__ import annotations

from pathlib import Path

import pytest

import syncgrade
from syncgrade.models import CheckResult, GradeReport

GOOD_BODY = """
import time, jax
def synchronized_samples(fn, args, repeats):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
"""


def _runs(report: GradeReport) -> CheckResult:
    return report.check("runs")


def test_syntax_error_names_the_line() -> None:
    source = "import time\n\ndef synchronized_samples(fn, args, repeats)\n    return None\n"
    report = syncgrade.grade("exercise-1", source=source)
    assert (report.status, report.cause) == ("failed", "syntax_error")
    assert _runs(report).status == "failed"
    assert "line 3" in _runs(report).message
    assert "SyntaxError" in _runs(report).message
    assert all(c.status == "skipped" for c in report.checks if c.id != "runs")


def test_missing_function_is_named() -> None:
    source = "def synchronised_samples(fn, args, repeats):\n    pass\n"
    report = syncgrade.grade("exercise-1", source=source)
    assert report.status == "failed"
    assert "synchronized_samples(fn, args, repeats)" in _runs(report).message


def test_wrong_signature_is_explained() -> None:
    report = syncgrade.grade("exercise-1", source="def synchronized_samples(fn, args):\n    pass\n")
    assert _runs(report).status == "failed"
    assert "cannot be called" in _runs(report).message


def test_exception_in_the_function_names_the_line() -> None:
    source = "def synchronized_samples(fn, args, repeats):\n    x = 1\n    return 1 / 0\n"
    report = syncgrade.grade("exercise-1", source=source)
    assert report.status == "failed"
    message = _runs(report).message
    assert "ZeroDivisionError" in message and "line 3" in message


def test_exception_at_import_names_the_line() -> None:
    report = syncgrade.grade("exercise-1", source="import time\nraise RuntimeError('boom')\n")
    assert "line 2" in _runs(report).message and "RuntimeError" in _runs(report).message


@pytest.mark.parametrize(
    ("data", "phrase"),
    [(b"", "empty"), (b"\xef\xbb\xbf\n", "empty"), (b"\x00\x01\x02binary", "binary"),
     (b"x = '\xff\xfe'\n", "UTF-8")],
)
def test_unreadable_files_get_a_clear_error(tmp_path: Path, data: bytes,
                                            phrase: str) -> None:
    path = tmp_path / "submission.py"
    path.write_bytes(data)
    report = syncgrade.grade("exercise-1", path)
    assert (report.status, report.cause) == ("failed", "unreadable")
    assert phrase in _runs(report).message
    assert report.grading.internal_error is None


def test_source_string_and_path_grade_the_same(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(GOOD_BODY)
    from_path = syncgrade.grade("exercise-1", path)
    from_source = syncgrade.grade("exercise-1", source=GOOD_BODY)
    assert from_path.status == from_source.status == "passed"
    assert from_path.submission.endswith("mine.py")


def test_a_file_with_a_byte_order_mark_is_graded_like_one_without(tmp_path: Path) -> None:
    # Editors on Windows save UTF-8 with a byte-order mark; Python runs such a file, so
    # it is no syntax error: graded as the same file without the mark, by path or text.
    path = tmp_path / "mine.py"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_BODY.encode("utf-8"))
    by_path = syncgrade.grade("exercise-1", path)
    by_source = syncgrade.grade("exercise-1", source="\ufeff" + GOOD_BODY)
    for report in (by_path, by_source):
        assert (report.status, report.cause) == ("passed", "graded"), report.summary
        assert report.score == report.max_score


def test_a_byte_order_mark_does_not_shift_a_syntax_error_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_bytes(b"\xef\xbb\xbfimport time\n\ndef synchronized_samples(fn, args, repeats)\n")
    report = syncgrade.grade("exercise-1", path)
    assert (report.status, report.cause) == ("failed", "syntax_error")
    assert "line 3" in _runs(report).message and "U+FEFF" not in _runs(report).message


def test_unknown_exercise_raises_a_usage_error() -> None:
    from syncgrade.rubric import UnknownExercise

    with pytest.raises(UnknownExercise):
        syncgrade.grade("exercise-99", source=GOOD_BODY)


def test_a_long_assertion_message_is_cut_to_its_first_line() -> None:
    source = ("def synchronized_samples(fn, args, repeats):\n"
              "    raise AssertionError('Not equal\\nACTUAL: [0.12345 0.5]\\nDESIRED: [0.2]')\n")
    message = _runs(syncgrade.grade("exercise-1", source=source)).message
    assert "Not equal" in message and "ACTUAL" not in message and "0.12345" not in message


UNPRINTABLE = {
    "str": "class E(Exception):\n    def __str__(self):\n        raise RuntimeError\n",
    "str and repr": ("class E(Exception):\n    def __str__(self):\n        raise RuntimeError\n"
                     "    def __repr__(self):\n        raise RuntimeError\n"),
    "str exits": "class E(Exception):\n    def __str__(self):\n        raise SystemExit(3)\n",
    "str is not text": "class E(Exception):\n    def __str__(self):\n        return 5\n",
    "metaclass name": ("class M(type):\n    @property\n    def __name__(cls):\n"
                       "        raise RuntimeError\n"
                       "class E(Exception, metaclass=M):\n    def __str__(self):\n"
                       "        raise RuntimeError\n"),
}


@pytest.mark.parametrize("where", ["call", "import"])
@pytest.mark.parametrize("kind", sorted(UNPRINTABLE))
def test_an_exception_that_cannot_be_printed_is_graded_with_its_line(kind: str,
                                                                     where: str) -> None:
    """Issue 17: the exception's `__str__`, `__repr__` or type name raising never crashes
    the worker or becomes a grader fault; `runs` fails with the line, like any other."""
    head = UNPRINTABLE[kind]
    line = head.count("\n") + (2 if where == "call" else 1)
    source = head + ("def synchronized_samples(fn, args, repeats):\n    raise E()\n"
                     if where == "call" else "raise E()\n")
    report = syncgrade.grade("exercise-1", source=source)
    assert report.grading.internal_error is None, report.grading.internal_error
    assert (report.status, report.cause) == ("failed", "graded")
    runs = _runs(report)
    assert runs.status == "failed"
    assert f"raised E on line {line}" in runs.message, runs.message
    assert runs.evidence.facts["line"] == line


def test_a_function_whose_signature_cannot_be_read_is_still_called() -> None:
    source = ("class E(Exception):\n    def __str__(self):\n        raise RuntimeError\n"
              "class F:\n    @property\n    def __signature__(self):\n        raise E()\n"
              "    def __call__(self, fn, args, repeats):\n        return None\n"
              "synchronized_samples = F()\n")
    report = syncgrade.grade("exercise-1", source=source, timeout=30)
    assert report.grading.internal_error is None, report.grading.internal_error
    assert (report.status, report.cause) == ("failed", "graded")  # not a timeout
    assert _runs(report).status == "passed"  # called, and it returned
