"""The transcripts shown in README.md and docs/ are run here and compared with the page, so
they cannot drift: each documented command whose output is shown runs through the CLI
(in this process), and its output must be the page's, once times, durations and measured
amounts (which vary from run to run) are normalised.

Where a page trims the output (`cut`, `…`), the comparison trims the same way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from syncgrade.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PLATFORMS = ROOT / "docs" / "platforms.md"


def transcript(page: Path, command: str) -> str:
    """The output a page shows under ``$ command`` in a ```text block: the lines after the
    command up to the next ``$`` line or the end of the block."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"$ {command}") + 1
    while lines[start].startswith("    "):  # the command continues
        start += 1
    out = []
    for line in lines[start:]:
        if line.startswith("$ ") or line == "```":
            break
        out.append(line)
    return "\n".join(out) + "\n"


def normalised(text: str) -> str:
    """Times and measured amounts out: a grade's duration, milliseconds, percentages, and
    which interval a race was first seen in (a no-wait sample's work may finish before
    the stop read in one interval and not in the next, more often on a loaded machine);
    then the line breaks, since where the text wraps follows the figures' lengths."""
    text = re.sub(r"\bIn interval \d+,", "In interval N,", text)
    text = re.sub(r"\((?:graded in )?\d+(?:\.\d+)? s(?: \+ start-up)?\)", "(N s)", text)
    text = re.sub(r"\b\d+(?:\.\d+)? ms\b", "N ms", text)
    text = re.sub(r"\b\d+% of(\s+)the work\)", r"N% of\1the work)", text)
    # Then the layout: a longer figure ("12.345 ms" for "0.205 ms") moves where the
    # report wraps a message or the timeline's heading, so every run of spaces and line
    # breaks counts as one space (the words and their order are what is compared).
    return re.sub(r"\s+", " ", text).strip()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the pages' paths are relative to the repository
    monkeypatch.delenv("SYNCGRADE_COURSE", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")  # the pages show an 80-column terminal


def test_the_transcript_helpers_read_the_page() -> None:
    assert transcript(README, "grade list").startswith("exercise-1  ")
    assert normalised("(1.4 s) about 49 ms (0% of the work)") == (
        "(N s) about N ms (N% of the work)")
    assert normalised("(your shortest sample was 0.06 ms, 0% of the work).") == (
        "(your shortest sample was N ms, N% of the work).")


def test_grade_list(in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert out == transcript(README, "grade list")


def test_grading_the_solution(in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    command = "grade exercise-1 solutions/exercise-1/solution.py"
    code, out, _ = run(capsys, *command.split()[1:])
    assert code == 0
    assert normalised(out) == normalised(transcript(README, command))


def test_grading_the_stub_handed_out_by_grade_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_repo: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "start", "exercise-1")[0] == 0
    code, out, _ = run(capsys, "exercise-1")
    assert code == 1
    assert normalised(out) == normalised(transcript(README, "grade exercise-1"))


def test_an_exercism_result_for_a_syntax_error(
        in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = "exercises/exercise-1/corpus/flawed/syntax_error.py"
    command = f'grade exercise-1 {path} --format exercism; echo "exit $?"'
    shown = transcript(PLATFORMS, command)
    code, out, _ = run(capsys, "exercise-1", path, "--format", "exercism")
    assert shown.rstrip("\n").endswith(f"exit {code}")
    result = json.loads(out)
    assert [f'  "version": {result["version"]},', f'  "status": "{result["status"]}",',
            f'  "message": {json.dumps(result["message"], ensure_ascii=False)},'
            ] == shown.splitlines()[1:4]
    rows = [line.strip() for line in shown.splitlines()
            if line.strip().startswith('{"name"')]
    assert rows
    for row, test in zip(rows, result["tests"], strict=False):
        doc = json.loads(row.rstrip(","))
        if doc["message"].endswith("…"):  # trimmed on the page
            assert test["message"].startswith(doc["message"][:-1])
            doc["message"] = test["message"]
        assert doc == test


def test_a_batch_in_the_prairielearn_format(
        in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    course, solution = "exercises/exercise-1", "solutions/exercise-1/solution.py"
    command = (f"grade batch {solution} {course}/corpus/flawed/syntax_error.py \\")
    shown = transcript(PLATFORMS, command).splitlines()
    code, out, err = run(capsys, "batch", solution,
                         f"{course}/corpus/flawed/syntax_error.py",
                         "--exercise", "exercise-1", "--format", "prairielearn")
    assert shown[-1] == f"exit {code}"
    records = [line for line in shown if line.startswith("{")]
    # Completion order varies: the same lines, cut at 120 characters as on the page.
    assert sorted(line[:120] for line in out.splitlines()) == sorted(records)
    assert [line for line in shown if line.startswith("graded ")] == err.splitlines()[-1:]


def test_grade_list_json_through_the_pages_jq_filters(
        in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/platforms.md's two `grade list --json | jq -c ...` lines, the filters in Python."""
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    listing = json.loads(out)
    first = listing["exercises"][0]
    first_two = {"id": first["id"], "title": first["title"],
                 "rubric_version": first["rubric_version"], "max_score": first["max_score"],
                 "checks": first["checks"][:2]}
    versions = {"syncgrade_version": listing["syncgrade_version"],
                "report_schema_version": listing["report_schema_version"]}

    def jq_c(value: object) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n"

    base = "  $ grade list --json | jq -c "
    page = PLATFORMS.read_text(encoding="utf-8").replace("\n  ", "\n")
    lines = page.splitlines()
    for jq, value in [("'.exercises[0] | {id, title, rubric_version, max_score, "
                       "checks: .checks[:2]}'", first_two),
                      ("'{syncgrade_version, report_schema_version}'", versions)]:
        command = (base + jq).strip()
        assert lines[lines.index(command) + 1] + "\n" == jq_c(value)


def _jq_line(text: str) -> object:
    return json.loads(text)  # jq -c prints 11 for 11.0: compare values, not text


def test_the_http_examples_are_the_reports_the_engine_gives(in_repo: None) -> None:
    """docs/platforms.md's `POST /v1/grade` examples, trimmed with jq: the service answers
    with the report of `syncgrade.grade(..., source=...)` (tests/service/test_service.py checks the
    transport), so the same projections of that report must be the page's lines."""
    import syncgrade

    lines = PLATFORMS.read_text(encoding="utf-8").splitlines()

    def shown_after(fragment: str) -> object:
        at = next(i for i, line in enumerate(lines) if fragment in line and "curl" in line)
        while not lines[at + 1].startswith("{"):
            at += 1
        return _jq_line(lines[at + 1])

    course = ROOT / "exercises" / "exercise-1"
    solution = syncgrade.grade("exercise-1", source=(
        ROOT / "solutions" / "exercise-1" / "solution.py").read_text())
    got = json.loads(solution.model_dump_json())
    keys = ["schema_version", "submission", "status", "cause", "score", "max_score", "summary"]
    assert shown_after("@req.json") == {key: got[key] for key in keys}

    flawed = syncgrade.grade("exercise-1",
                             source=(course / "corpus" / "flawed" / "no_wait.py").read_text())
    got = json.loads(flawed.model_dump_json())
    assert shown_after("@req2.json") == {
        **{key: got[key] for key in ["status", "cause", "score", "summary"]},
        "failed": [c["id"] for c in got["checks"] if c["status"] == "failed"]}


def test_the_readme_batch_csv_has_the_real_columns(
        in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    """README's `grade batch ... --format csv` example grades files that are not in the
    repository (subs/): its header, column count and max score are checked here against a
    real batch of the solution."""
    import csv
    import io

    shown = transcript(README, "cat grades.csv")
    code, out, _ = run(capsys, "batch", "solutions/exercise-1/solution.py",
                       "--exercise", "exercise-1", "--format", "csv")
    assert code == 0
    header, row = list(csv.reader(io.StringIO(out)))
    rows = list(csv.reader(io.StringIO(shown)))
    assert rows[0] == header
    for doc_row in rows[1:]:
        assert len(doc_row) == len(header), doc_row[0]
        assert doc_row[4] == row[4]  # max_score


def test_the_readme_validate_transcript_counts_what_the_course_holds(
        in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    """README's `grade validate exercise-1 --runs 1` transcript (grading all of it takes a
    minute, and `.ci/run` runs validate itself): its counts against the built-in course."""
    import tomllib

    shown = transcript(README, "grade validate exercise-1 --runs 1")
    folder = ROOT / "exercises" / "exercise-1"
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    [entry] = [e for e in json.loads(out)["exercises"] if e["id"] == "exercise-1"]
    mutants = tomllib.loads((folder / "mutants.toml").read_text(encoding="utf-8"))["mutant"]
    corpus = list((folder / "corpus").glob("*/*.py"))
    graded = 2 + len(mutants) + len(corpus)  # the solution, the stub, mutants, corpus
    max_score = f"{entry['max_score']:g}"
    assert f"all {len(entry['checks'])} checks covered" in shown
    assert f"passed {max_score}/{max_score}" in shown
    assert f"{graded} files, 1 runs each" in shown
    assert re.search(rf"VALID  1 exercise\(s\), {graded + 7} items, 0 problem\(s\); "
                     rf"{graded} grades in \d+ s \(runs=1, jobs=2\)", shown)
    names = {m["name"] for m in mutants}
    assert set(re.findall(r"mutant (\w+)", shown)) <= names


def test_the_gradescope_entry_point_transcript(
        tmp_path: Path, in_repo: None, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/platforms.md's simulated Gradescope layout, run in this process."""
    from syncgrade.platforms.entry import gradescope_main

    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "source" / "syncgrade.json").write_text('{"exercise": "exercise-1", "timeout": 60}')
    no_wait = ROOT / "exercises/exercise-1/corpus/flawed/no_wait.py"
    (root / "submission" / "submission.py").write_text(no_wait.read_text())
    command = 'python -m syncgrade.platforms.entry gradescope --root autograder; echo "exit $?"'
    shown = transcript(PLATFORMS, command).splitlines()
    capsys.readouterr()
    code = gradescope_main(["--root", str(root)])
    out = capsys.readouterr().out.splitlines()
    assert shown[-1] == f"exit {code}"
    assert normalised(shown[0]) == normalised(out[0])  # the summary line (stderr or stdout)
    not_yet = [line for line in shown if line.startswith("NOT YET")]
    assert [normalised(line) for line in not_yet] == [
        normalised(line) for line in out if line.startswith("NOT YET")]

    results = json.loads((root / "results" / "results.json").read_text())
    page = transcript(PLATFORMS, "cat autograder/results/results.json")
    page = re.sub(r"\n\s*…,?", "", page)  # the page's elisions
    page = re.sub(r",(\s*[\]}])", r"\1", page)
    doc = json.loads(page)
    assert doc["score"] == results["score"] and doc["output"] == results["output"]
    assert doc["stdout_visibility"] == results["stdout_visibility"]
    assert doc["extra_data"] == results["extra_data"]
    by_name = {test["name"]: test for test in results["tests"]}
    for test in doc["tests"]:
        got = by_name[test["name"]]
        assert normalised(test.pop("output")) == normalised(got.pop("output"))
        assert test == got
