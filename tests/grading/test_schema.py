"""The published GradeReport schema and the catalogue: the committed schema is the generated
one, a structural change needs a new version, real reports validate against it, and
readers accept exactly the versions and fields the policy in docs/platforms.md promises."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

import syncgrade
from syncgrade import cli
from syncgrade.courses import EXERCISES
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.schema import (
    AT_MOST,
    catalogue,
    report_schema,
    report_validator,
    schema_file_name,
    schema_text,
    structural_fingerprint,
)

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SCHEMA_DIR = ROOT / "docs" / "schema"
NO_WAIT = COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py"

# The structural fingerprint of each released schema version. If this test fails you
# changed the report's shape: bump SCHEMA_VERSION in models.py by the rule in its
# docstring, run `grade schema --write docs/schema`, and ADD a line here. Never edit an
# existing line: a released version's shape is fixed.
RELEASED = {
    "2.0": "ddc49eb07252ed72",
    "2.1": "e29b5e26f3dd4ead",  # evidence.interval and evidence.samples (the pictures)
    "2.2": "2d835c1766546a6f",  # a check's follows and same_interval_as, evidence.answer (issue 27)
}


def _committed() -> Path:
    return SCHEMA_DIR / schema_file_name(SCHEMA_VERSION)


def test_the_committed_schema_is_the_generated_one() -> None:
    path = _committed()
    assert path.is_file(), (f"{path.relative_to(ROOT)} is missing: run "
                            "`grade schema --write docs/schema`")
    assert path.read_text(encoding="utf-8") == schema_text(), (
        "docs/schema is stale: run `grade schema --write docs/schema`")


def test_the_schema_names_its_version() -> None:
    schema = json.loads(_committed().read_text(encoding="utf-8"))
    assert _committed().name == f"gradereport-{SCHEMA_VERSION}.schema.json"
    assert schema["$id"].endswith(f":{SCHEMA_VERSION}")
    assert schema["title"] == f"GradeReport {SCHEMA_VERSION}"
    assert "schema_version" in schema["required"]


def test_a_change_of_shape_needs_a_new_version() -> None:
    assert SCHEMA_VERSION in RELEASED, (
        f"schema_version {SCHEMA_VERSION} has no pinned fingerprint: add "
        f'"{SCHEMA_VERSION}": "{structural_fingerprint()}" to RELEASED')
    assert structural_fingerprint() == RELEASED[SCHEMA_VERSION], (
        "the report's structure changed without a new schema_version: bump it (see "
        "models.py), regenerate docs/schema and pin the new fingerprint")


def test_prose_does_not_move_the_fingerprint_but_shape_does() -> None:
    schema = report_schema()
    reworded: dict[str, Any] = json.loads(json.dumps(schema))
    reworded["properties"]["summary"]["description"] = "reworded"
    reworded["$defs"]["CheckResult"]["title"] = "Renamed title"
    assert structural_fingerprint(reworded) == structural_fingerprint(schema)
    reshaped: dict[str, Any] = json.loads(json.dumps(schema))
    reshaped["properties"]["summary"]["type"] = "integer"
    assert structural_fingerprint(reshaped) != structural_fingerprint(schema)
    renamed: dict[str, Any] = json.loads(json.dumps(schema))
    renamed["properties"]["headline"] = renamed["properties"].pop("summary")
    assert structural_fingerprint(renamed) != structural_fingerprint(schema)


def test_grade_schema_prints_it_and_writes_it(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema"]) == 0
    assert capsys.readouterr().out == schema_text()
    assert cli.main(["schema", "--write", str(tmp_path)]) == 0
    assert (tmp_path / schema_file_name()).read_text(encoding="utf-8") == schema_text()


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(_committed().read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def graded() -> GradeReport:
    """One real grade: a flawed exercise-1 submission, whose report carries a timeline."""
    return syncgrade.grade("exercise-1", NO_WAIT, display_name="no_wait.py")


@pytest.fixture(scope="module")
def unreadable() -> dict[str, Any]:
    """A report as JSON without running a child (an empty file is not run)."""
    data: dict[str, Any] = json.loads(syncgrade.grade("exercise-1", source="").model_dump_json())
    return data


def test_a_real_report_validates_against_the_committed_schema(
        graded: GradeReport, validator: jsonschema.protocols.Validator) -> None:
    assert graded.status == "failed" and graded.cause == "graded"
    data = json.loads(graded.model_dump_json())
    assert any(c["evidence"]["timeline"] for c in data["checks"]), "want a timeline in it"
    validator.validate(data)


def test_the_schema_rejects_what_syncgrade_rejects(
        unreadable: dict[str, Any], validator: jsonschema.protocols.Validator) -> None:
    validator.validate(unreadable)
    for bad in ({**unreadable, "schema_version": "3.0"},
                {**unreadable, "surprise": 1},
                {k: v for k, v in unreadable.items() if k != "schema_version"},
                {**unreadable, "cause": "gremlins"}):
        assert not validator.is_valid(bad)
        with pytest.raises(ValidationError):
            GradeReport.model_validate_json(json.dumps(bad))


@pytest.mark.parametrize("version", ["1.0", "3.0", "2", "two"])
def test_another_major_version_is_rejected(unreadable: dict[str, Any], version: str) -> None:
    with pytest.raises(ValidationError, match="schema_version"):
        GradeReport.model_validate_json(json.dumps({**unreadable, "schema_version": version}))


def test_a_newer_minor_is_read_only_without_unknown_fields(
        unreadable: dict[str, Any], validator: jsonschema.protocols.Validator) -> None:
    major, minor = SCHEMA_VERSION.split(".")
    version = f"{major}.{int(minor) + 1}"
    newer = {**unreadable, "schema_version": version}
    assert GradeReport.model_validate_json(json.dumps(newer)).schema_version == version
    assert validator.is_valid(newer)
    with pytest.raises(ValidationError, match="extra"):
        GradeReport.model_validate_json(json.dumps({**newer, "new_optional_field": "x"}))


def test_a_report_round_trips(unreadable: dict[str, Any]) -> None:
    text = json.dumps(unreadable)
    assert json.loads(GradeReport.model_validate_json(text).model_dump_json()) == unreadable


def test_list_json_is_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(catalogue().model_dump_json())
    assert data["report_schema_version"] == SCHEMA_VERSION
    assert [e["id"] for e in data["exercises"]] == list(EXERCISES)
    for entry in data["exercises"]:
        exercise = EXERCISES[entry["id"]]
        assert set(entry) == {"id", "title", "rubric_version", "max_score", "checks",
                              "contracts"}
        assert len(entry["contracts"]) == len(exercise.samples)
        assert (entry["title"], entry["rubric_version"]) == (exercise.title, exercise.version)
        assert [c["id"] for c in entry["checks"]] == [c.id for c in exercise.checks]
        assert entry["max_score"] == sum(c["points"] for c in entry["checks"]) > 0
        for check in entry["checks"]:
            assert set(check) == {"id", "title", "points", "visibility"}
            assert check["visibility"] in ("visible", "hidden", "after_due_date")


def test_the_catalogue_agrees_with_a_real_report(graded: GradeReport) -> None:
    entry = next(e for e in catalogue().exercises if e.id == "exercise-1")
    assert entry.max_score == graded.max_score
    assert f"{entry.id}@{entry.rubric_version}" == graded.provenance.rubric_version
    # The report lists the checks in the exercise's order, as the catalogue does.
    assert [(c.id, c.title, c.points, c.visibility) for c in entry.checks] == [
        (c.id, c.title, c.max_points, c.visibility) for c in graded.checks]


def test_plain_list_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(EXERCISES)


def test_the_shipped_validator_rejects_a_score_above_max_score(
        unreadable: dict[str, Any]) -> None:
    """Plain JSON Schema cannot compare two fields: the committed schema states the order
    with x-syncgrade-atMost, and report_validator (what syncgrade ships) enforces it, on
    the committed copy as on the generated one, as the model does."""
    committed = json.loads(_committed().read_text(encoding="utf-8"))
    assert committed[AT_MOST] == {"score": "max_score"}
    assert committed["$defs"]["CheckResult"][AT_MOST] == {"points": "max_points"}
    above = {**unreadable, "score": unreadable["max_score"] + 1}
    check = {**unreadable["checks"][0], "points": unreadable["checks"][0]["max_points"] + 1}
    over_points = {**unreadable, "checks": [check, *unreadable["checks"][1:]]}
    for schema in (committed, None):
        shipped = report_validator(schema)
        shipped.validate(unreadable)
        with pytest.raises(jsonschema.ValidationError, match=r"score \d+\.0 is above max_score"):
            shipped.validate(above)
        assert [e.message for e in shipped.iter_errors(over_points)] == [
            f"points {check['points']!r} is above max_points {check['max_points']!r}"]
    with pytest.raises(ValidationError, match=r"score \d+\.0"):  # the model rejects it too
        GradeReport.model_validate_json(json.dumps(above))
    # A generic validator ignores an unknown keyword: why syncgrade ships its own.
    assert jsonschema.Draft202012Validator(committed).is_valid(above)


def test_the_docs_name_the_real_rubric_versions() -> None:
    """Every `exercise-N@V` (a report's provenance.rubric_version) and every catalogue line
    `"id":"exercise-N",...,"rubric_version":"V"` in the docs is what `grade list --json`
    says now."""
    versions = {e.id: e.rubric_version for e in catalogue().exercises}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for exercise, version in re.findall(r"\b(exercise-\d+)@(\w+)", text):
            found += 1
            assert versions.get(exercise) == version, (
                f"{page.relative_to(ROOT)} says {exercise}@{version}; grade list --json "
                f"says {versions.get(exercise)}")
        for exercise, version in re.findall(
                r'"id":\s*"(exercise-\d+)"[^{}]*?"rubric_version":\s*"(\w+)"', text):
            found += 1
            assert versions.get(exercise) == version, f"{page.name}: {exercise} {version}"
    assert found >= 3  # the pages do quote versions: this test reads them
