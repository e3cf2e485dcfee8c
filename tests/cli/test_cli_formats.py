"""`grade --format` and `grade batch --format`: every format on stdout alone, exit codes
unchanged, one line of error for a bad combination."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from platform_support import check_exercism, check_gradescope, check_prairielearn

from syncgrade import cli
from syncgrade.models import GradeReport

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions
SOLUTION = SOLUTIONS / "exercise-1" / "solution.py"
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


def test_html_in_the_platform_formats_from_grade_and_batch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--html` gives the platform formats their HTML (as the container entry points'
    `--html` does): Gradescope outputs as HTML with the failing interval's picture,
    PrairieLearn's pictures as images; the same verdict and exit code as without."""
    assert cli.main(["exercise-1", str(NO_WAIT), "--format", "gradescope",
                     "--html"]) == cli.EXIT_NOT_FULL
    results = json.loads(capsys.readouterr().out)
    check_gradescope(results)
    assert results["output_format"] == "html"
    assert any("<svg" in test["output"] for test in results["tests"])

    out = tmp_path / "pl.jsonl"
    assert cli.main(["batch", str(NO_WAIT), "--exercise", "exercise-1", "--format",
                     "prairielearn", "--html", "--out", str(out)]) == 0
    (line,) = [json.loads(text) for text in out.read_text().splitlines()]
    check_prairielearn(line["results"])
    images = [image for test in line["results"]["tests"] for image in test.get("images", [])]
    assert images and images[0]["url"].startswith("data:image/svg+xml;base64,")


@pytest.mark.parametrize("argv", [
    ["exercise-1", str(NO_WAIT), "--html"],
    ["exercise-1", str(NO_WAIT), "--json", "--html"],
    ["batch", str(NO_WAIT), "--exercise", "exercise-1", "--format", "csv", "--html"],
])
def test_html_without_a_platform_format_is_one_line(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert cli.main(argv) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--html is for the platform formats" in err


# ------------------------------------------------------------------ the HTML report


def _self_contained(page: str) -> None:
    """One file, nothing fetched: inline style and SVG only, light/dark and print."""
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    lowered = page.lower()
    for fetch in ("<script", "<link", "<img", "@import", "src=", "@font-face"):
        assert fetch not in lowered, fetch
    assert not re.search(r"url\((?!#)", page)  # only the page's own gradients: url(#id)
    assert not re.search(r"href=\"(?!#)", page)  # only links within the page
    assert {url for url in re.findall(r"https?://[^\s\"'<>)]+", page)} <= {
        "http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    assert "prefers-color-scheme:dark" in page and "@media print" in page


def test_html_report_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert cli.main(["exercise-1", "--format", "html", str(NO_WAIT), "-o", str(out)]) == 1
    assert capsys.readouterr().out == ""
    page = out.read_text(encoding="utf-8")
    _self_contained(page)
    # The failing timing check draws its interval, with the text timeline beside it.
    check = page[page.index('data-check="sync-before-stop"'):]
    check = check[:check.index("</li>")]
    assert "<svg" in check and 'class="sg-timeline"' in check
    assert "the timed work was still running when the timer stopped" in check
    assert "out = fn(*args)" in check  # the learner's own line


def test_html_report_on_stdout_draws_nothing_for_full_marks(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["exercise-1", str(SOLUTION), "--format", "html"]) == 0
    page = capsys.readouterr().out
    _self_contained(page)
    assert "Full marks" in page and "<svg" not in page

    assert cli.main(["exercise-1", str(SOLUTION), "--format", "html", "--passing"]) == 0
    page = capsys.readouterr().out  # --passing: the passing checks' interval, drawn
    _self_contained(page)
    assert "Full marks" in page and 'class="sg-pic sg-interval"' in page


@pytest.mark.parametrize("found_a_browser", [True, False])
def test_open_writes_a_private_file_and_opens_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], found_a_browser: bool) -> None:
    import tempfile
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def browser(url: str, *_: object, **__: object) -> bool:
        opened.append(url)
        return found_a_browser

    monkeypatch.setattr(webbrowser, "open", browser)
    assert cli.main(["exercise-1", "--open", str(NO_WAIT)]) == cli.EXIT_NOT_FULL
    page = tmp_path / f"syncgrade-{os.getuid()}" / "exercise-1-no_wait.html"
    assert opened == [page.as_uri()]
    assert (page.parent.stat().st_mode & 0o777) == 0o700
    _self_contained(page.read_text(encoding="utf-8"))
    out = capsys.readouterr().out
    if found_a_browser:
        assert out == f"opened {page.as_uri()}\n"
    else:
        assert out == (f"wrote {page}; no browser could be opened here, open "
                       f"{page.as_uri()} in yours\n")


def test_open_uses_the_browser_setting(tmp_path: Path) -> None:
    """End to end: `grade --open --out FILE` hands the file's URL to $BROWSER."""
    seen = tmp_path / "seen.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.argv[1])\n")
    env = {**os.environ, "NO_COLOR": "1", "BROWSER": f"{sys.executable} {browser} %s"}
    result = subprocess.run([sys.executable, "-m", "syncgrade.cli", "--open", "exercise-1",
                             "-o", "mine.html", str(NO_WAIT)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == cli.EXIT_NOT_FULL, result.stderr
    page = tmp_path / "mine.html"
    assert seen.read_text() == page.as_uri()
    assert result.stdout == f"opened {page.as_uri()}\n"
    assert 'data-check="sync-before-stop"' in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("argv", "words"), [
    (["--open", "--format", "json"], "--open opens the HTML report; leave out --format json"),
    (["--open", "--json"], "--open opens the HTML report; leave out --format json"),
    (["--format", "html", "--out", "{tmp}/no/such/folder/r.html"], "not a file in an existing"),
    (["--out", "{tmp}"], "not a file in an existing folder"),
    (["--passing"], "--passing draws pictures: use it with --format html or --open"),
    (["--passing", "--json"], "--passing draws pictures"),
])
def test_html_option_mistakes_are_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str],
                                           argv: list[str], words: str) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert cli.main(["exercise-1", str(NO_WAIT), *args]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and words in err, err
