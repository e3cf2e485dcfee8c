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


def test_a_file_expected_to_fail_interval_clean_may_co_fire_sample_duration() -> None:
    item = _flawed({"interval-clean"})
    assert SELFCHECK.agrees(item, _report("cpu", "interval-clean", "sample-duration"))[0]
    assert not SELFCHECK.agrees(item, _report("cpu", "sample-duration"))[0]
    one_way = _flawed({"sample-duration"})
    assert not SELFCHECK.agrees(one_way, _report("cpu", "sample-duration",
                                                 "interval-clean"))[0]


def test_named_files_are_corpus_files_each_once_with_their_headers() -> None:
    header = "exercises/exercise-*/corpus/flawed/*.py"
    items = SELFCHECK.named_items([header, "exercises/exercise-1/corpus/flawed/*.py"])
    assert len(items) == len({i.path for i in items}) == len(list(ROOT.glob(header)))
    marked = [i for i in items if i.tpu_may_pass]
    assert marked and all(i.kind == "flawed" and i.tpu_may_pass <= i.expected_failures
                          for i in marked)
    assert {i.exercise for i in items} == {p.name for p in (ROOT / "exercises").glob(
        "exercise-*") if (p / "corpus" / "flawed").is_dir()}
    try:
        SELFCHECK.named_items(["solutions/exercise-1/solution.py"])
    except SystemExit as exc:
        assert "names no corpus file" in str(exc)
    else:
        raise AssertionError("a solution is not a corpus file")


def test_a_tpu_may_fail_check_may_fail_on_a_tpu_only_in_a_correct_or_flawed_file() -> None:
    correct = SELFCHECK.Item("exercise-5", "correct", ROOT / "x.py",
                             tpu_may_fail=frozenset({"runs"}))
    assert SELFCHECK.agrees(correct, _report("tpu"))[0]
    assert SELFCHECK.agrees(correct, _report("tpu", "runs"))[0]
    assert not SELFCHECK.agrees(correct, _report("cpu", "runs"))[0]
    assert not SELFCHECK.agrees(correct, _report("tpu", "runs", "shape"))[0]
    assert not SELFCHECK.agrees(correct, _report("tpu", status="error"))[0]
    flawed = SELFCHECK.Item("exercise-5", "flawed", ROOT / "x.py", frozenset({"shape"}),
                            tpu_may_fail=frozenset({"runs"}))
    assert SELFCHECK.agrees(flawed, _report("tpu", "shape", "runs"))[0]
    assert not SELFCHECK.agrees(flawed, _report("tpu", "runs"))[0]
    assert not SELFCHECK.agrees(flawed, _report("cpu", "shape", "runs"))[0]
    solution = SELFCHECK.Item("exercise-5", "solution", ROOT / "x.py")
    assert SELFCHECK.agrees(solution, _report("tpu"))[0]
    assert not SELFCHECK.agrees(solution, _report("tpu", "runs"))[0]
