"""docs/architecture.md's table of grading stages is what ``grading.pipeline.grade`` runs:
the functions it names exist, ``grade`` calls them in that order, and each returns the
value the table names (read from the function's annotation)."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import typing
from pathlib import Path

from syncgrade.grading import pipeline

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"

_ROW = re.compile(r"^\| (\d) \| (\w+) \| `(\w+)` \| `(\w+)` \|$", re.MULTILINE)


def _stages() -> list[tuple[str, str, str]]:
    """(stage, function, value) of each row of the stage table, in the order numbered."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## The grading stages"):text.index("## One grade, file by file")]
    rows = _ROW.findall(section)
    assert [int(number) for number, *_ in rows] == list(range(1, len(rows) + 1))
    return [(stage, function, value) for _, stage, function, value in rows]


def test_the_documented_stages_are_the_ones_the_docs_name_in_the_arrow() -> None:
    assert [stage for stage, _, _ in _stages()] == [
        "submission", "run", "frames", "verdicts", "cause", "report"]


def test_grade_calls_each_stage_function_once_in_the_documented_order() -> None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(pipeline.grade_result)))
    called = [node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    names = [function for _, function, _ in _stages()]
    # ast.walk is breadth-first: order the calls by where they are written instead.
    calls = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name) and node.func.id in names),
                   key=lambda node: (node.lineno, node.col_offset))
    assert [node.func.id for node in calls] == names  # type: ignore[attr-defined]
    assert all(called.count(name) == 1 for name in names)


def test_each_stage_returns_its_documented_value_from_the_one_before() -> None:
    previous: str | None = None
    for _, function, value in _stages():
        fn = getattr(pipeline, function)
        hints = typing.get_type_hints(fn)
        assert hints["return"].__name__ == value, function
        if previous is not None:
            params = list(inspect.signature(fn).parameters)
            # Stage 2 also takes the exercise, its hidden data and the limits; every
            # later stage takes the value before it as its first argument.
            takes = params[1] if function == "run_children" else params[0]
            assert getattr(hints[takes], "__name__", None) == previous, function
        previous = value


def test_each_stage_value_is_frozen() -> None:
    for _, _, value in _stages()[1:-1]:
        cls = getattr(pipeline, value)
        params = getattr(cls, "__dataclass_params__", None)
        assert params is not None and params.frozen, value
