"""`grade batch`: one report per file, bounded parallelism, failures isolated."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path
from types import SimpleNamespace

from process_support import LoadBudget

from syncgrade.models import GradeReport

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
CORPUS = COURSE / "exercise-1" / "corpus"


def batch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "syncgrade.cli", "batch", *args],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def _submissions(folder: Path) -> dict[str, str]:
    folder.mkdir()
    files = {
        "good.py": (CORPUS / "correct" / "method_wait.py").read_text(),
        "no_wait.py": (CORPUS / "flawed" / "no_wait.py").read_text(),
        "hang.py": "while True:\n    pass\n",
        "exits.py": "import os\nos._exit(3)\n",
        "junk.py": "\x00\x01binary",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return files


def test_jsonl_has_one_report_per_file_and_a_hang_delays_nobody(tmp_path: Path) -> None:
    _submissions(tmp_path / "subs")
    out = tmp_path / "reports.jsonl"
    budget = LoadBudget()
    started = time.perf_counter()
    result = batch(str(tmp_path / "subs"), "--exercise", "exercise-1", "--jobs", "2",
                   "--timeout", "8", "--out", str(out))
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    reports = [GradeReport.model_validate_json(line) for line in out.read_text().splitlines()]
    by_name = {Path(r.submission).name: r for r in reports}
    assert sorted(by_name) == ["exits.py", "good.py", "hang.py", "junk.py", "no_wait.py"]
    assert by_name["good.py"].status == "passed"
    assert by_name["no_wait.py"].status == "failed"
    assert by_name["hang.py"].grading.termination == "timeout"
    assert by_name["exits.py"].status == by_name["junk.py"].status == "failed"
    assert (by_name["exits.py"].cause, by_name["junk.py"].cause) == ("crashed", "unreadable")
    assert by_name["hang.py"].cause == "timeout"
    assert ("graded 5 of 5: 1 full marks, 4 not yet (1 crashed, 1 timeout, 1 unreadable), "
            "0 grader faults") in result.stderr
    assert result.stdout == ""
    # The hang cost its own limit, not everyone's (idle: 12 s of work per other file).
    assert elapsed < 8 + budget.bound(5 * 12)


def test_csv_rows_carry_every_check(tmp_path: Path) -> None:
    _submissions(tmp_path / "subs")
    result = batch(str(tmp_path / "subs" / "good.py"), str(tmp_path / "subs" / "no_wait.py"),
                   "--exercise", "exercise-1", "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(result.stdout.splitlines()))
    assert len(rows) == 2
    no_wait = next(r for r in rows if r["submission"].endswith("no_wait.py"))
    assert no_wait["sync-before-stop"] == "failed" and no_wait["runs"] == "passed"
    assert float(no_wait["score"]) < float(no_wait["max_score"])


def test_jsonl_on_stdout_when_no_out_file(tmp_path: Path) -> None:
    _submissions(tmp_path / "subs")
    result = batch(str(tmp_path / "subs" / "good.py"), "--exercise", "exercise-1")
    (line,) = result.stdout.splitlines()
    assert json.loads(line)["status"] == "passed"


def test_usage_errors(tmp_path: Path) -> None:
    for args in (["nothing.py", "--exercise", "exercise-1"],
                 [str(CORPUS / "correct" / "method_wait.py"), "--exercise", "exercise-99"],
                 [str(CORPUS / "correct" / "method_wait.py"), "--exercise", "exercise-1",
                  "--jobs", "0"]):
        result = batch(*args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr and result.stderr.startswith("grade: ")


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    import os
    import pty

    _submissions(tmp_path / "subs")
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "syncgrade.cli", "batch", str(tmp_path / "subs" / "good.py"),
         str(tmp_path / "subs" / "junk.py"), "--exercise", "exercise-1",
         "--out", str(tmp_path / "out.jsonl")],
        stdout=subprocess.DEVNULL, stderr=slave, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the batch ended
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    shown = b"".join(chunks).decode()
    assert "2/2" in shown and "█" in shown
    assert "graded 2 of 2" in shown


def test_tally_summary_counts_each_status() -> None:
    from syncgrade.batch import Tally, progress_line

    tally = Tally(total=4)
    assert "0/4" in progress_line(tally)
    assert tally.summary() == "graded 0 of 4: 0 full marks, 0 not yet, 0 grader faults"
    for status, cause, fault in (("passed", "graded", None), ("failed", "timeout", None),
                                 ("failed", "graded", None), ("error", "grader_fault", "x")):
        tally.add(SimpleNamespace(status=status, cause=cause,  # type: ignore[arg-type]
                                  grading=SimpleNamespace(internal_error=fault)))
    assert tally.summary() == ("graded 4 of 4: 1 full marks, 2 not yet (1 timeout), "
                               "1 grader faults")
    assert tally.internal_errors == 1


def test_closing_the_report_stream_early_cancels_the_grades_not_started() -> None:
    """An interrupted batch (Ctrl-C, a closed output) stops grading at once: the grades
    not yet started are cancelled, not run and thrown away."""
    import threading

    from syncgrade.batch import grade_all

    started: list[Path] = []
    release = threading.Event()

    def grader(path: Path) -> Path:
        started.append(path)  # one worker thread: no two appends at once
        if path.name != "0.py":
            release.wait(60)  # still running when the stream is closed
        return path

    reports = grade_all([Path(f"{i}.py") for i in range(20)], grader, jobs=1)
    assert next(reports) == Path("0.py")
    threading.Timer(0.2, release.set).start()  # lets the running grade end during close
    assert isinstance(reports, Generator)  # closing it is the contract under test
    reports.close()
    assert len(started) <= 2, started  # the one yielded and the one running, no more
