"""HTML in the platform formats (Gradescope ``output_format: "html"`` with the interval's
SVG, PrairieLearn test ``images``; Exercism stays text), and the cleaning of
learner-controlled text (file names, printed output, quoted lines) on its way into any
results file."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from platform_support import (
    check_exercism,
    check_gradescope,
    check_html_fragment,
    check_prairielearn,
    make_check,
    make_report,
)

import syncgrade
from syncgrade.models import GradeReport
from syncgrade.platforms import to_exercism, to_gradescope, to_prairielearn
from syncgrade.platforms.common import clean_name, clean_text
from syncgrade.platforms.entry import gradescope_main

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"
LINES = NO_WAIT.read_text().splitlines()


@pytest.fixture(scope="module")
def flawed() -> GradeReport:
    """A real grade whose failing timing checks carry an interval picture."""
    report = syncgrade.grade("exercise-1", NO_WAIT, display_name="submission.py")
    assert report.check("sync-before-stop").evidence.interval is not None
    return report


def test_gradescope_html_carries_the_picture_of_each_failing_timing_check(
        flawed: GradeReport) -> None:
    results = to_gradescope(flawed, source_lines=LINES, html=True)
    check_gradescope(results)  # every html output parses as an inert, balanced fragment
    assert results["output_format"] == "html"
    assert {t["output_format"] for t in results["tests"]} == {"html"}
    tests = {t["name"].split(":")[0]: t for t in results["tests"]}
    sync = tests["sync-before-stop"]["output"]
    tags = check_html_fragment(sync)
    assert "svg" in tags and "figure" in tags and "pre" in tags
    assert "perf_counter" in sync  # the learner's own line, in the picture and the text
    for check in flawed.checks:
        out = tests[check.id]["output"]
        assert ("<svg" in out) == (check.status == "failed"
                                   and check.evidence.interval is not None), check.id
    # The text default is unchanged and carries no markup.
    text = to_gradescope(flawed, source_lines=LINES)
    assert "output_format" not in text and "<" not in text["tests"][0]["output"]


def test_prairielearn_images_are_the_pictures_once_each(flawed: GradeReport) -> None:
    results = to_prairielearn(flawed, source_lines=LINES, html=True)
    check_prairielearn(results)  # images: {label, url} with a base64 SVG data URL
    imaged = [t for t in results["tests"] if "images" in t]
    assert imaged and imaged[0]["name"].startswith("sync-before-stop")
    svg = base64.b64decode(imaged[0]["images"][0]["url"].split(",", 1)[1]).decode()
    assert "<desc" in svg and "perf_counter" in svg  # the text timeline, its description
    failing = [c for c in flawed.checks if c.status == "failed" and c.evidence.interval]
    intervals = {c.evidence.interval.model_dump_json() for c in failing if c.evidence.interval}
    assert len(imaged) == len(intervals)  # an interval failing two checks is drawn once
    plain = to_prairielearn(flawed, source_lines=LINES)
    assert [{k: v for k, v in t.items() if k != "images"} for t in results["tests"]] == (
        plain["tests"])  # message and output stay text


def test_exercism_stays_text(flawed: GradeReport) -> None:
    assert to_exercism(flawed, html=True) == to_exercism(flawed)
    check_exercism(to_exercism(flawed))


def test_the_entry_point_html_option(tmp_path: Path) -> None:
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "submission.py").write_text(NO_WAIT.read_text())
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "syncgrade.json").write_text(json.dumps(
        {"exercise": "exercise-1", "html": True}))
    assert gradescope_main(["--root", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    check_gradescope(results)
    assert results["output_format"] == "html"
    (tmp_path / "source" / "syncgrade.json").write_text(json.dumps(
        {"exercise": "exercise-1", "html": "yes"}))
    assert gradescope_main(["--root", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert "not set up correctly" in results["output"]  # html must be true or false


EVIL = "<script>alert(1)</script>\x1b[2J\x00\u202eevil"


def test_learner_text_is_cleaned_and_escaped_in_every_format() -> None:
    report = make_report(
        make_check("runs", "passed"),
        make_check("shape", message=f"your file {EVIL}.py returned (3,)", hint=EVIL),
        stdout=f"printed {EVIL}\r\n", stderr=f"Traceback {EVIL}\n")
    for html in (False, True):
        gradescope = to_gradescope(report, html=html)
        check_gradescope(gradescope)  # no control characters anywhere
        prairielearn = to_prairielearn(report, html=html)
        check_prairielearn(prairielearn)
        check_exercism(to_exercism(report))
        for results in (gradescope, prairielearn):
            assert "\u202e" not in json.dumps(results, ensure_ascii=False)
    html_out = json.dumps(to_gradescope(report, html=True))
    assert "<script>" not in html_out and "&lt;script&gt;alert(1)&lt;/script&gt;" in html_out
    assert "<script>" in to_gradescope(report)["tests"][1]["output"]  # text is shown as text


def test_clean_name() -> None:
    assert clean_name("a\nb\tc\x1b[31m.py") == "a b c[31m.py"
    assert clean_name("\x00\u202e") == "submission"
    long = clean_name("x" * 500 + ".py")
    assert len(long) == 120 and long.endswith("xx.py") and "…" in long
    assert clean_text("line 1\r\nline 2\tend\x7f") == "line 1\nline 2\tend"
    assert clean_text(clean_text(EVIL)) == clean_text(EVIL)


def test_a_learner_chosen_file_name_reaches_results_clean(tmp_path: Path) -> None:
    name = "my\x1b[2J<b>bold\nfile.py"
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / name).write_text("def f(:\n")
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "syncgrade.json").write_text(json.dumps(
        {"exercise": "exercise-1", "html": True}))
    assert gradescope_main(["--root", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    check_gradescope(results)
    runs = results["tests"][0]["output"]
    assert "my[2J&lt;b&gt;bold file.py" in runs and "\x1b" not in runs
