"""The shapes syncgrade publishes for machines: the GradeReport JSON Schema and the catalogue.

``report_schema()`` is the JSON Schema (draft 2020-12) of :class:`~syncgrade.models.GradeReport`
as syncgrade reads it, named by ``SCHEMA_VERSION`` in its ``$id`` and ``title``. A copy is
committed as ``docs/schema/gradereport-<version>.schema.json`` (``grade schema --write
docs/schema``); tests/grading/test_schema.py fails when the copy and the model drift apart, or when
the model's structure changes without a new version.

The schema is exact for its version: ``additionalProperties`` is false everywhere, because
syncgrade itself rejects unknown fields. ``schema_version`` must match ``MAJOR.x`` of this
syncgrade. The versioning rule is in :mod:`syncgrade.models`; docs/platforms.md says what
other consumers should do with fields they do not know.

Plain JSON Schema cannot compare two fields, so the one order the report's numbers must
keep is stated with a keyword of our own, ``x-syncgrade-atMost`` (:data:`AT_MOST`): on the
report ``{"score": "max_score"}``, on each check ``{"points": "max_points"}``, each meaning
"the first field is at most the second" (up to ``models.POINTS_TOLERANCE``). A generic
validator ignores an unknown keyword; :func:`report_validator` is a ``jsonschema``
validator that enforces it, so a report with ``score > max_score`` is rejected by what
syncgrade ships, as :class:`~syncgrade.models.GradeReport` itself rejects it.

``catalogue()`` is what ``grade list --json`` prints and ``GET /v1/exercises`` returns: each
exercise with its rubric version, maximum score and checks.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

import syncgrade
from syncgrade.models import SCHEMA_VERSION, GradeReport, Visibility, same_points

if TYPE_CHECKING:
    from collections.abc import Iterator

    from syncgrade.courses import Course

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
AT_MOST = "x-syncgrade-atMost"
"""Our keyword: ``{"a": "b"}`` on an object schema means the instance's number ``a`` is at
most its number ``b`` (both present and numbers; up to ``POINTS_TOLERANCE``)."""


def schema_id(version: str = SCHEMA_VERSION) -> str:
    """The ``$id`` of the report schema of ``version``: a URN, since it names the schema
    rather than a place to download it from."""
    return f"urn:syncgrade:schema:gradereport:{version}"


def schema_file_name(version: str = SCHEMA_VERSION) -> str:
    return f"gradereport-{version}.schema.json"


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a GradeReport of this syncgrade's ``SCHEMA_VERSION``.

    Generated from the pydantic model (validation mode: what syncgrade accepts), plus the
    dialect, ``$id`` and a title naming the version, and a ``pattern`` on
    ``schema_version`` so a JSON Schema validator rejects another major version just as
    :meth:`GradeReport.model_validate_json` does.
    """
    generated = GradeReport.model_json_schema()
    major = SCHEMA_VERSION.split(".")[0]
    properties = dict(generated["properties"])
    properties["schema_version"] = {**properties["schema_version"],
                                    "pattern": rf"^{major}\.[0-9]+$"}
    defs = dict(generated["$defs"])
    defs["CheckResult"] = {**defs["CheckResult"], AT_MOST: {"points": "max_points"}}
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": schema_id(),
        **generated,
        "title": f"GradeReport {SCHEMA_VERSION}",
        "description": (f"A syncgrade grade report, schema_version {SCHEMA_VERSION}. "
                        "MAJOR.MINOR: a new optional field bumps MINOR; removing or renaming "
                        "a field, changing a type or adding an enumeration value bumps MAJOR. "
                        f"{AT_MOST} {{\"a\": \"b\"}}: the number a is at most the number b "
                        "(syncgrade.schema.report_validator enforces it)."),
        "properties": properties,
        "$defs": defs,
        AT_MOST: {"score": "max_score"},
    }


def report_validator(schema: dict[str, Any] | None = None) -> Any:
    """A ``jsonschema`` validator of ``schema`` (default: :func:`report_schema`) that also
    enforces :data:`AT_MOST`: ``validator.validate(data)`` raises
    ``jsonschema.ValidationError`` for a report whose ``score`` is above its ``max_score``
    (or a check's ``points`` above its ``max_points``), as for any other violation.
    Needs the ``jsonschema`` package (the ``test`` extra); raises ``ImportError`` saying so
    when it is missing."""
    try:
        import jsonschema
        from jsonschema.exceptions import ValidationError
    except ImportError:
        raise ImportError("syncgrade.schema.report_validator needs the jsonschema package: "
                          "pip install jsonschema") from None

    def at_most(validator: Any, pairs: dict[str, str], instance: Any,
                _schema: dict[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for low, high in pairs.items():
            a, b = instance.get(low), instance.get(high)
            if not (validator.is_type(a, "number") and validator.is_type(b, "number")):
                continue  # a missing or mistyped field is the schema's own error
            if a > b and not same_points(a, b):  # the models' own test (GradeReport)
                yield ValidationError(f"{low} {a!r} is above {high} {b!r}")

    schema = report_schema() if schema is None else schema
    base = jsonschema.validators.validator_for(schema)
    return jsonschema.validators.extend(base, {AT_MOST: at_most})(schema)


def schema_text() -> str:
    """``report_schema()`` exactly as ``grade schema`` prints it and the committed copy
    holds it (two-space indent, trailing newline)."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(folder: Path) -> Path:
    """Write ``schema_text()`` to ``folder/gradereport-<version>.schema.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / schema_file_name()
    target.write_text(schema_text(), encoding="utf-8")
    return target


_PROSE_KEYS = frozenset({"title", "description"})


def structural_fingerprint(schema: dict[str, Any] | None = None) -> str:
    """A short hash of the schema without its prose (titles, descriptions), without the
    version-bearing ``$id`` and without our own ``x-syncgrade-*`` keywords: it changes
    exactly when a report's shape changes, which is when ``SCHEMA_VERSION`` must change
    too. The ``x-syncgrade-*`` keywords state orders the model has always enforced
    (``score <= max_score`` since 2.0), so stating them changes no report's shape."""

    def strip(node: Any, key: str = "") -> Any:
        if isinstance(node, dict):
            # A dict of properties or $defs has names as keys, so "title" there is a field
            # called title (kept); everywhere else it is prose (dropped).
            names = key in ("properties", "$defs")
            return {k: strip(v, k) for k, v in sorted(node.items())
                    if names or (k not in _PROSE_KEYS and k != "$id"
                                 and not k.startswith("x-syncgrade-"))}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    body = json.dumps(strip(schema if schema is not None else report_schema()),
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckInfo(_Strict):
    id: str = Field(description="stable check id from EXERCISES.md, as in a report's checks")
    title: str
    points: float
    visibility: Visibility


class SamplesContract(_Strict):
    """One list of samples an exercise asks for, and the interval each sample measures
    (docs/checks.md, "The measurement contract")."""

    call: str = Field(description="the grader call that returns the list")
    samples: list[str | int] = Field(description="where the list is in the return value")
    count: int
    label: str
    phases: list[str] = Field(description="the lesson's phases each interval holds")
    timed: str = Field(description="what each sample times")
    static: list[Any] | None = Field(description="one \"hidden\" per static argument whose "
                                     "value the contract fixes for each timed call (the "
                                     "values are the grader's, never shown)")
    probe: bool = Field(description="the list comes from the grader's calibrated probe")
    donates: bool = Field(False, description="every timed call must donate its input "
                          "(`donates-input`)")


class ExerciseInfo(_Strict):
    id: str = Field(description="exercise id, e.g. exercise-1")
    title: str
    rubric_version: str = Field(description="the rubric's version; a report of it has "
                                "provenance.rubric_version `<id>@<rubric_version>`")
    max_score: float
    checks: list[CheckInfo] = Field(description="in the order a report lists them")
    contracts: list[SamplesContract] = Field(
        default_factory=list, description="each list of samples and its declared interval")


class Catalogue(_Strict):
    syncgrade_version: str
    report_schema_version: str = Field(description="the schema_version of the reports this "
                                       "syncgrade produces")
    exercises: list[ExerciseInfo]


def catalogue(course: str | os.PathLike[str] | Course | None = None) -> Catalogue:
    """Every exercise of ``course`` (default: ``$SYNCGRADE_COURSE``, else the built-in
    course), in number order, with its checks."""
    from syncgrade.courses import open_course

    exercises = open_course(course).exercises

    return Catalogue(
        syncgrade_version=syncgrade.__version__,
        report_schema_version=SCHEMA_VERSION,
        exercises=[
            ExerciseInfo(
                id=exercise.id, title=exercise.title, rubric_version=exercise.version,
                max_score=exercise.max_score,
                checks=[CheckInfo(id=c.id, title=c.title, points=c.points,
                                  visibility=c.visibility) for c in exercise.checks],
                contracts=[SamplesContract(**s.describe()) for s in exercise.samples],
            )
            for exercise in exercises.values()
        ],
    )
