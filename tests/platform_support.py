"""Each platform's documented results.json field set, as checks the tests share.

Sources: Gradescope ``docs/specs.md`` (gradescope/autograder_samples), PrairieLearn
``docs/externalGrading.md``, Exercism ``building/tooling/test-runners/interface.md``.
Each validator asserts exact key sets, types and ranges, so a renamed or extra field fails.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    Evidence,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
    Timeline,
    TimelineEntry,
)

GS_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GS_FORMATS = {"text", "html", "simple_format", "md", "ansi"}
GS_TOP = {"score", "execution_time", "output", "stdout_visibility", "tests", "extra_data"}
GS_TOP_OPTIONAL = {"visibility", "output_format"}  # the rest of Gradescope's top level
GS_TEST = {"name", "score", "max_score", "status", "output", "visibility"}
GS_TEST_OPTIONAL = {"output_format"}
PL_GRADABLE = {"gradable", "score", "message", "output", "tests"}
PL_UNGRADABLE = {"gradable", "format_errors", "message", "output"}
PL_TEST = {"name", "points", "max_points", "message", "output"}
PL_TEST_OPTIONAL = {"images", "description"}
EX_TOP = {"version", "status", "message", "tests"}
EX_TEST = {"name", "status", "message", "output", "test_code", "task_id"}
VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "col", "source"}
UNSAFE_TAGS = {"script", "iframe", "object", "embed", "foreignobject", "form", "link", "meta"}
CONTROL = {chr(c) for c in [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0)]}


class _Fragment(HTMLParser):
    """Checks one HTML fragment: every element closed in order, nothing executable."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def _element(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag not in UNSAFE_TAGS, tag
        for name, value in attrs:
            assert not name.startswith("on"), name
            assert "javascript:" not in (value or "").lower(), value
        self.tags.append(tag)


def check_html_fragment(text: str) -> list[str]:
    """Assert ``text`` is a well-formed, inert HTML fragment; return its tags in order."""
    parser = _Fragment()
    parser.feed(text)
    parser.close()
    assert parser.open == [], f"unclosed: {parser.open}"
    return parser.tags


def check_clean(results: Any) -> None:
    """No control character (other than newline and tab) in any string of a results file."""
    text = json.dumps(results, ensure_ascii=False)
    for value in _strings(results):
        assert not CONTROL & set(value), repr(value)[:200]
    assert text


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_gradescope(results: dict[str, Any]) -> None:
    assert GS_TOP <= set(results) <= GS_TOP | GS_TOP_OPTIONAL
    assert _number(results["score"]) and results["score"] >= 0
    assert _number(results["execution_time"]) and results["execution_time"] >= 0
    assert isinstance(results["output"], str) and results["output"]
    assert results["stdout_visibility"] in GS_VISIBILITY
    assert results.get("visibility", "visible") in GS_VISIBILITY
    assert results.get("output_format", "text") in GS_FORMATS
    if results.get("output_format") == "html":
        check_html_fragment(results["output"])
    assert isinstance(results["extra_data"], dict)
    assert isinstance(results["tests"], list)
    for test in results["tests"]:
        assert GS_TEST <= set(test) <= GS_TEST | GS_TEST_OPTIONAL
        assert isinstance(test["name"], str) and test["name"]
        assert _number(test["score"]) and _number(test["max_score"])
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["output"], str)
        assert test["visibility"] in GS_VISIBILITY
        assert test.get("output_format", "text") in GS_FORMATS
        if test.get("output_format") == "html":
            check_html_fragment(test["output"])
    if results["tests"]:
        assert abs(sum(t["score"] for t in results["tests"]) - results["score"]) < 1e-9
    check_clean(results)
    json.dumps(results, allow_nan=False)


def check_prairielearn(results: dict[str, Any]) -> None:
    assert isinstance(results["gradable"], bool)
    assert isinstance(results["message"], str) and results["message"]
    assert isinstance(results["output"], str)
    if results["gradable"]:
        assert set(results) == PL_GRADABLE
        assert _number(results["score"]) and 0.0 <= results["score"] <= 1.0
        for test in results["tests"]:
            assert PL_TEST <= set(test) <= PL_TEST | PL_TEST_OPTIONAL
            assert isinstance(test["name"], str) and test["name"]
            assert _number(test["points"]) and _number(test["max_points"])
            assert 0 <= test["points"] <= test["max_points"]
            assert isinstance(test["message"], str) and isinstance(test["output"], str)
            for image in test.get("images", []):
                check_pl_image(image)
    else:
        assert set(results) == PL_UNGRADABLE
        errors = results["format_errors"]
        assert isinstance(errors, list) and errors
        assert all(isinstance(e, str) and e for e in errors)
    check_clean(results)
    assert len(json.dumps(results, allow_nan=False).encode()) < 1_000_000  # PL's 1 MB


def check_pl_image(image: Any) -> None:
    """One PrairieLearn ``images`` entry: ``{label, url}`` with a base64 image data URL
    (here an SVG that parses as a well-formed, inert fragment)."""
    import base64

    assert isinstance(image, dict) and set(image) == {"label", "url"}
    assert isinstance(image["label"], str) and image["label"]
    head, _, body = image["url"].partition(",")
    assert head == "data:image/svg+xml;base64", head
    svg = base64.b64decode(body, validate=True).decode("utf-8")
    assert svg.startswith("<svg") and check_html_fragment(svg)[0] == "svg"


def check_exercism(results: dict[str, Any]) -> None:
    assert set(results) == EX_TOP
    assert results["version"] == 3
    assert results["status"] in ("pass", "fail", "error")
    if results["status"] == "error":
        assert isinstance(results["message"], str) and results["message"]
        assert len(results["message"]) <= 65535
    else:
        assert results["message"] is None
    statuses = []
    for test in results["tests"]:
        assert set(test) == EX_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert test["status"] in ("pass", "fail", "error")
        assert test["message"] is None or isinstance(test["message"], str)
        assert test["output"] is None or (isinstance(test["output"], str)
                                          and len(test["output"]) <= 500)
        assert isinstance(test["task_id"], int) and test["task_id"] >= 1
        assert isinstance(test["test_code"], str) and test["test_code"]
        statuses.append(test["status"])
    if results["status"] == "pass":
        assert statuses and set(statuses) == {"pass"}
    elif results["status"] == "fail":
        assert {"fail", "error"} & set(statuses)
    else:
        assert set(statuses) <= {"error"}
    check_clean(results)
    json.dumps(results, allow_nan=False)


def make_check(check_id: str, status: str = "failed", *, visibility: str = "visible",
               message: str = "", hint: str = "", facts: dict[str, Any] | None = None,
               timeline: Timeline | None = None, points: float = 1.0) -> CheckResult:
    return CheckResult.model_validate({
        "id": check_id, "title": check_id.title(), "status": status,
        "points": points if status == "passed" else 0.0, "max_points": points,
        "message": message or f"{check_id} {status}", "hint": hint,
        "evidence": Evidence(facts=facts or {}, timeline=timeline), "visibility": visibility})


def make_report(*checks: CheckResult, status: str = "failed", cause: str = "graded",
                summary: str = "s", stdout: str = "", stderr: str = "",
                internal_error: str | None = None) -> GradeReport:
    def stream(text: str) -> StreamExcerpt:
        return StreamExcerpt(text=text, truncated=False, total_bytes=len(text))

    return GradeReport.model_validate({
        "schema_version": SCHEMA_VERSION, "exercise": "exercise-1", "title": "t",
        "submission": "submission.py", "status": status, "cause": cause,
        "score": sum(c.points for c in checks), "max_score": sum(c.max_points for c in checks),
        "summary": summary, "checks": list(checks), "stdout": stream(stdout),
        "stderr": stream(stderr),
        "grading": GradingInfo(seconds=1.5, timeout_s=60, internal_error=internal_error),
        "provenance": Provenance(syncgrade_version="0", rubric_version="1")})


def secret_timeline(secret: str) -> Timeline:
    return Timeline(file="submission.py", seconds=0.001, entries=[
        TimelineEntry(what="timer start", line=3, note=secret),
        TimelineEntry(what="timer stop", line=4, detail=secret)])
