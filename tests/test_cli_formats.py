"""`grade --format` and `grade batch --format`: every format on stdout alone, exit codes
unchanged, one line of error for a bad combination."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from platform_support import check_exercism, check_gradescope, check_prairielearn

from syncgrade import cli
from syncgrade.models import GradeReport

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "src" / "syncgrade" / "course"  # the built-in course
SOLUTION = COURSE / "exercise-1" / "solution.py"
FLAWED = COURSE / "exercise-1" / "corpus" / "flawed"
NO_WAIT = FLAWED / "no_wait.py"
SYNTAX = FLAWED / "syntax_error.py"


def test_platform_format_is_the_only_thing_on_stdout() -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "syncgrade.cli", "exercise-1",
                             str(NO_WAIT), "--format", "gradescope"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == cli.EXIT_NOT_FULL, result.stderr
    results = json.loads(result.stdout)
    check_gradescope(results)
    assert 0 < results["score"] < 10


@pytest.mark.parametrize(("path", "fmt", "code"), [
    (SOLUTION, "prairielearn", cli.EXIT_FULL_MARKS),
    (SYNTAX, "exercism", cli.EXIT_NOT_FULL),
    (SYNTAX, "prairielearn", cli.EXIT_NOT_FULL),
])
def test_exit_codes_do_not_depend_on_the_format(
        capsys: pytest.CaptureFixture[str], path: Path, fmt: str, code: int) -> None:
    assert cli.main(["exercise-1", str(path), "--format", fmt]) == code
    results = json.loads(capsys.readouterr().out)
    {"prairielearn": check_prairielearn, "exercism": check_exercism}[fmt](results)


def test_json_alias_and_conflicts(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["exercise-1", str(SYNTAX), "--format", "json"]) == cli.EXIT_NOT_FULL
    report = GradeReport.model_validate_json(capsys.readouterr().out)
    assert report.cause == "syntax_error"
    assert cli.main(["exercise-1", str(SYNTAX), "--json", "--format", "json"]) == 1
    capsys.readouterr()
    assert cli.main(["exercise-1", str(SYNTAX), "--json", "--format", "text"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--json" in err
    with pytest.raises(SystemExit) as exit_:
        cli.main(["exercise-1", str(SYNTAX), "--format", "moodle"])
    assert exit_.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_batch_platform_lines_and_text(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pl.jsonl"
    assert cli.main(["batch", str(SOLUTION), str(SYNTAX), "--exercise", "exercise-1",
                     "--format", "prairielearn", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 2 and all(set(line) == {"submission", "results"} for line in lines)
    by_name = {Path(line["submission"]).name: line["results"] for line in lines}
    for results in by_name.values():
        check_prairielearn(results)
    assert by_name["solution.py"]["score"] == 1.0
    assert by_name["syntax_error.py"]["gradable"] is False

    assert cli.main(["batch", str(SYNTAX), "--exercise", "exercise-1", "--format",
                     "text"]) == 0
    text = capsys.readouterr().out
    assert "syntax_error.py" in text and "NOT YET" in text and "✗ runs" in text

    csv_out = tmp_path / "r.csv"
    assert cli.main(["batch", str(SYNTAX), "--exercise", "exercise-1", "--format", "csv",
                     "--out", str(csv_out)]) == 0
    row = next(csv.DictReader(csv_out.read_text().splitlines()))
    assert (row["status"], row["cause"], row["runs"]) == ("failed", "syntax_error", "failed")

    assert cli.main(["batch", str(SYNTAX), "--exercise", "exercise-1", "--format",
                     "json"]) == 0
    assert GradeReport.model_validate_json(capsys.readouterr().out).cause == "syntax_error"
