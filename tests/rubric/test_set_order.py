"""A report's sets are judged in a fixed order: the field a `report-schema` message names
inside a set (``boundary[1]``) is the same in every grade, whatever the hash seed that
ordered the set in the grading process (exercise-6's ``unknown_phase_name`` corpus file
named ``boundary[0]`` in one grade and ``boundary[2]`` in another)."""

from __future__ import annotations

import subprocess
import sys

from syncgrade.rubric.checks_report import grouped_problems, schema_errors
from syncgrade.rubric.report_models import RepairReport

PROGRAM = """
from syncgrade.rubric.checks_report import grouped_problems, schema_errors
from syncgrade.rubric.report_models import RepairReport
report = {"boundary": frozenset({"dispatch", "execution", "output wait", "warm-up"}),
          "samples": [0.1, 0.2]}
print(grouped_problems(schema_errors(report, RepairReport)))
"""


def test_an_unknown_phase_in_a_set_is_named_at_its_sorted_place() -> None:
    report = {"boundary": {"output wait", "execution", "dispatch"}, "samples": [0.1]}
    [line] = grouped_problems(schema_errors(report, RepairReport))
    assert line.startswith("`boundary[1]` is 'execution', not a phase name"), line


def test_the_message_is_the_same_under_every_hash_seed() -> None:
    seen = {subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(seed)}).stdout
            for seed in (0, 1, 2, 3, 4, 5)}
    assert len(seen) == 1, seen
    assert "`boundary[1]` is 'execution'" in seen.pop()
