"""benchmarks/selfcheck.py's rules (issue 34): what counts as agreement with the corpus
folders on each backend, and a seed's draw that does not depend on the exercises given."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _selfcheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("selfcheck", ROOT / "benchmarks" /
                                                  "selfcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("selfcheck", module)
    spec.loader.exec_module(module)
    return module


SELFCHECK = _selfcheck()


def _report(backend: str, *failed: str, status: str | None = None) -> Any:
    checks = [SimpleNamespace(id=i, status="failed") for i in failed]
    return SimpleNamespace(status=status or ("failed" if failed else "passed"),
                           checks=checks, score=0, max_score=1, cause="graded", summary="",
                           provenance=SimpleNamespace(backend=backend))


def _flawed(expected: set[str], may_fail: frozenset[str] = frozenset(),
            tpu_may_pass: frozenset[str] = frozenset()) -> Any:
    return SELFCHECK.Item("exercise-8", "flawed", ROOT / "x.py", frozenset(expected),
                          may_fail, tpu_may_pass)


def test_a_tpu_may_pass_check_may_pass_on_a_tpu_only() -> None:
    item = _flawed({"numpy-match"}, tpu_may_pass=frozenset({"numpy-match"}))
    assert SELFCHECK.agrees(item, _report("tpu"))[0]
    assert SELFCHECK.agrees(item, _report("tpu", "numpy-match"))[0]
    assert not SELFCHECK.agrees(item, _report("cpu"))[0]
    assert SELFCHECK.agrees(item, _report("cpu", "numpy-match"))[0]
    assert not SELFCHECK.agrees(item, _report("tpu", "numpy-match", "runs"))[0]


def test_a_flawed_file_may_fail_its_may_fail_checks_and_no_other() -> None:
    item = _flawed({"placement-included"}, may_fail=frozenset({"sample-duration"}))
    assert SELFCHECK.agrees(item, _report("cpu", "placement-included"))[0]
    assert SELFCHECK.agrees(item, _report("cpu", "placement-included", "sample-duration"))[0]
    assert not SELFCHECK.agrees(item, _report("cpu", "sample-duration"))[0]
    assert not SELFCHECK.agrees(item, _report("cpu", "placement-included", "runs"))[0]
    assert not SELFCHECK.agrees(item, _report("cpu", status="error"))[0]


def test_a_seeds_draw_of_an_exercise_does_not_depend_on_the_others_drawn() -> None:
    alone = SELFCHECK.corpus_items(SELFCHECK.exercises(["3"]), 3, 3406)
    together = SELFCHECK.corpus_items(SELFCHECK.exercises([]), 3, 3406)
    assert alone and [i for i in together if i.exercise == "exercise-3"] == alone
    assert {i.kind for i in alone} == {"correct", "flawed"}
