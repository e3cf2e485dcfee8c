"""The lines a report's timelines quote are the lines that were graded, carried beside the
report (:class:`syncgrade.grading.GradeResult`), never the file read again: a file saved
while it was graded (``grade watch``) or since must not put other lines under the
report's line numbers. One grade (module-scoped); each entry point then renders it after
the file on disk has changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from syncgrade import grading
from syncgrade.grading import GradeResult
from syncgrade.grading.submission import BOM, decode_submission

CHANGED = "# CHANGED ON DISK AFTER GRADING"


def _no_wait() -> Path:
    from syncgrade.courses import open_course

    return open_course().folder("exercise-1").corpus / "flawed" / "no_wait.py"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[GradeResult, Path]:
    """``no_wait.py`` graded once from a copy, then that copy overwritten line for line
    (same line count, so a re-read would still find every quoted line number)."""
    path = tmp_path_factory.mktemp("lines") / "submission.py"
    shutil.copyfile(_no_wait(), path)
    result = grading.grade_result("exercise-1", path, display_name="submission.py")
    original = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([CHANGED] * len(original)) + "\n", encoding="utf-8")
    return result, path


def _serve(monkeypatch: pytest.MonkeyPatch, result: GradeResult) -> None:
    """Every entry point's grade answers ``result`` (already graded), without a child."""
    monkeypatch.setattr(grading, "grade_result", lambda *args, **kwargs: result)
    # The entry points close the child they pre-started (an unused one too): no child here.
    monkeypatch.setattr("syncgrade.pool.prestart",
                        lambda *args, **kwargs: SimpleNamespace(close=lambda: None))


def _quoted(result: GradeResult) -> str:
    """The text of the graded line the failing timeline's stop read is on."""
    timeline = result.report.check("sync-before-stop").evidence.timeline
    assert timeline is not None
    lines = [e.line for e in timeline.entries if e.what == "timer stop" and e.line]
    assert result.source_lines is not None and lines
    return result.source_lines[lines[0] - 1].strip()


def test_the_result_carries_the_lines_it_graded(graded: tuple[GradeResult, Path]) -> None:
    result, _ = graded
    assert result.source_lines == tuple(_no_wait().read_text(encoding="utf-8").splitlines())
    assert "perf_counter" in _quoted(result)
    assert result.report.status == "failed"
    # exercise-1's author hint for `runs` (tests/grading/test_author_hints.py) is said only
    # when `runs` fails: here it passed.
    runs = result.report.check("runs")
    assert runs.status == "passed" and runs.hint == ""


@pytest.mark.parametrize("fmt", ["text", "html"])
def test_the_cli_quotes_the_graded_lines_not_the_file_now(
        graded: tuple[GradeResult, Path], monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    from syncgrade.cli.grade import grade_one
    from syncgrade.cli.request import Request

    result, path = graded
    _serve(monkeypatch, result)
    shown = grade_one(Request("exercise-1", path, None, fmt=fmt, terminal=False,
                              use_daemon=False))
    assert CHANGED not in shown.text
    quoted = _quoted(result)
    assert (quoted if fmt == "text" else quoted.replace('"', "&quot;")) in shown.text


def test_a_platform_entry_quotes_the_graded_lines(graded: tuple[GradeResult, Path],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    from syncgrade.platforms.entry import gradescope_main

    result, path = graded
    _serve(monkeypatch, result)
    (tmp_path / "submission").mkdir()
    shutil.copyfile(path, tmp_path / "submission" / "submission.py")  # the changed file
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "syncgrade.json").write_text('{"exercise": "exercise-1"}')
    assert gradescope_main(["--root", str(tmp_path)]) == 0
    results: dict[str, Any] = json.loads((tmp_path / "results" / "results.json").read_text())
    sync = next(t for t in results["tests"] if t["name"].startswith("sync-before-stop"))
    assert _quoted(result) in sync["output"]
    assert CHANGED not in json.dumps(results)


def test_the_lines_are_decoded_as_the_grader_reads_them() -> None:
    """UTF-8 with its byte-order mark dropped (``utf-8-sig``): line 1 is the code, as the
    child ran it; nothing graded (an empty file): no lines."""
    assert decode_submission(BOM + b"import time\r\nx = 1\n", "a.py").lines == (
        "import time", "x = 1")
    assert decode_submission(b"  \n", "a.py").lines is None
