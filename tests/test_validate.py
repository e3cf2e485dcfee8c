"""`grade validate`: its parts without grading, then the command end to end on a real
exercise (valid) and on deliberately wrong course roots (invalid, exit 1, the problem in
the table)."""

from __future__ import annotations

import shutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from syncgrade.authoring import validate as v
from syncgrade.authoring.mutants import MutantError, read_mutant
from syncgrade.cli import main

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ parts, no grading

def test_mutant_header_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "no_wait.py"
    path.write_text("# mutant: no wait\n# must-fail: b a\nx = 1\n")
    mutant = read_mutant(path)
    assert (mutant.name, mutant.what, mutant.must_fail) == ("no_wait", "no wait",
                                                            frozenset({"a", "b"}))


@pytest.mark.parametrize("header", ["# mutant: x\n", "# must-fail: runs\n",
                                    "# mutant: x\n# must-fail:\n",
                                    "# mutant: x\n# must-fail: a\n# must-fail: b\n"])
def test_bad_mutant_header_is_one_clear_error(tmp_path: Path, header: str) -> None:
    path = tmp_path / "bad.py"
    path.write_text(header + "x = 1\n")
    with pytest.raises(MutantError, match=r"^bad\.py: "):
        read_mutant(path)


def _verdict(status: str = "failed", failed: tuple[str, ...] = (), cause: str = "graded",
             runs: bool = True, fault: str = "") -> v.Verdict:
    return v.Verdict(status, cause, frozenset(failed), 1.0, 2.0, runs, fault=fault)


def test_judge_mutants_exactly() -> None:
    target = v.Target("exercise-1", "mutant m", Path("m.py"), "mutant",
                      frozenset({"sync-before-stop"}))
    ids = {"runs", "sync-before-stop", "covers-device-work"}
    assert v.judge(target, _verdict(failed=("sync-before-stop",)), ids) == ""
    assert v.judge(target, _verdict(failed=("sync-before-stop", "covers-device-work")),
                   ids) == "also failed covers-device-work"
    assert v.judge(target, _verdict(status="passed"), ids) == "did not fail sync-before-stop"
    unknown = v.Target("exercise-1", "mutant u", Path("u.py"), "mutant", frozenset({"nope"}))
    assert "unknown check(s) nope" in v.judge(unknown, _verdict(failed=("nope",)), ids)
    assert "grader fault" in v.judge(target, _verdict(status="error", fault="boom"), ids)


def test_judge_solution_and_stub() -> None:
    solution = v.Target("exercise-1", "solution", Path("s.py"), "solution")
    stub = v.Target("exercise-1", "stub", Path("t.py"), "stub")
    assert v.judge(solution, _verdict(status="passed"), set()) == ""
    assert v.judge(solution, _verdict(failed=("x",)), set()) == "failed: x"
    assert v.judge(stub, _verdict(failed=("x",)), set()) == ""
    assert v.judge(stub, _verdict(status="passed"), set()) == "the stub gets full marks"
    assert "does not run cleanly" in v.judge(stub, _verdict(failed=("runs",), runs=False),
                                             set())
    assert "does not run cleanly" in v.judge(stub, _verdict(cause="timeout"), set())


def test_stub_data_facts_from_code_and_readme() -> None:
    stub = ("import numpy as np\nSEED = 5\nrng = np.random.default_rng(0)\n"
            "x = rng.normal(size=(64, 32))\nz = np.zeros((7,))\nr = np.random.default_rng(SEED)\n")
    readme = "Text.\n```python\nw = rng.normal(size=(32, 16))\n```\n"
    blocks = v.code_blocks(stub, "submission.py") + v.code_blocks(readme, "README.md")
    seeds, shapes = v.data_facts(blocks)
    assert seeds == {0, 5}
    assert shapes == {(64, 32), (7,), (32, 16)}


@dataclass
class _FakeExercise:
    arrays: dict[str, Any]
    checks: tuple[Any, ...] = ()
    calls: list[int] = field(default_factory=list)

    def make_inputs(self) -> dict[str, Any]:
        self.calls.append(1)
        return {k: (f() if callable(f) else f) for k, f in self.arrays.items()}


def test_hidden_inputs_compared_with_the_stub() -> None:
    stub = {"submission.py": "rng = np.random.default_rng(0)\nx = rng.normal(size=(64, 32))\n"}
    ok = _FakeExercise({"x": np.ones((96, 48), np.float32)})
    assert v.hidden_input_problems(ok, stub, "rng = np.random.default_rng(123)")[0] == []
    same_shape = _FakeExercise({"x": np.ones((64, 32), np.float32)})
    problems, _ = v.hidden_input_problems(same_shape, stub, "")
    assert problems == ["hidden x has the stub's shape (64, 32)"]
    problems, _ = v.hidden_input_problems(ok, stub, "rng = np.random.default_rng(0)")
    assert problems == ["the rubric uses the stub's seed 0"]
    fresh = np.random.default_rng()
    drifting = _FakeExercise({"x": lambda: fresh.normal(size=(3, 5))})
    problems, _ = v.hidden_input_problems(drifting, stub, "")
    assert problems == ["make_inputs() is not reproducible: x changed between calls"]
    assert v.hidden_input_problems(_FakeExercise({}), stub, "") == (
        [], "no hidden arrays (nothing computed on inputs)")


def test_real_rubrics_hidden_inputs_differ_from_their_stubs() -> None:
    rubrics = v.load_rubrics()
    for exercise_id, exercise in rubrics.exercises.items():
        texts = {n: (ROOT / "exercises" / exercise_id / n).read_text() for n in v.STUB_FILES}
        problems, _ = v.hidden_input_problems(exercise, texts, v.rubric_source(exercise)[1])
        assert problems == [], exercise_id


def test_a_rubric_error_is_reported_as_the_authors(tmp_path: Path) -> None:
    rubrics = v.Rubrics({}, {"exercise-1": "rubric error in exercise-1: bad parameter"})
    plan = v.plan_exercise("exercise-1", ROOT, rubrics)
    assert [(r.item, r.got, r.ok) for r in plan.rows] == [
        ("rubric", "rubric error in exercise-1: bad parameter", False)]
    assert plan.targets == []


def test_load_rubrics_collects_rubric_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    class RubricError(Exception):
        pass

    good = types.SimpleNamespace(id="exercise-1")
    fake = types.ModuleType("syncgrade.rubric")
    fake.RubricError = RubricError  # type: ignore[attr-defined]
    fake.EXERCISES = {"exercise-1": good, "exercise-2": object()}  # type: ignore[attr-defined]
    fake.RUBRIC_ERRORS = {  # type: ignore[attr-defined]
        "exercise-3": RubricError("rubric error in exercise-3: no such workload")}

    def get_exercise(exercise_id: str) -> Any:
        if exercise_id == "exercise-2":
            raise RubricError("rubric error in exercise-2: make_inputs lacks 'x'")
        return good

    fake.get_exercise = get_exercise  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "syncgrade.rubric", fake)
    monkeypatch.setattr(sys.modules["syncgrade"], "rubric", fake, raising=False)
    rubrics = v.load_rubrics()
    assert rubrics.exercises == {"exercise-1": good}
    assert rubrics.errors == {
        "exercise-2": "rubric error in exercise-2: make_inputs lacks 'x'",
        "exercise-3": "rubric error in exercise-3: no such workload"}


# ------------------------------------------------------------------ the command

def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    for argv in (["validate", "exercise-99"], ["validate"],
                 ["validate", "--root", str(tmp_path), "--all"],
                 ["validate", "exercise-1", "--all"], ["new", "exercise-x", "--title", "T"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("grade: ") and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err


def test_validate_passes_on_a_real_exercise(capsys: pytest.CaptureFixture[str]) -> None:
    # exercise-2 is the cheapest to grade (a concept exercise: no timing in the child).
    assert main(["validate", "exercise-2", "--runs", "1", "--root", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    assert "VALID  1 exercise(s)" in out
    for item in ("rubric", "files", "coverage", "hidden-inputs", "stub-copy", "solution",
                 "stub", "mutant sync_after_stop", "stable"):
        assert f" {item} " in out, item


def _wrong_root(tmp_path: Path) -> Path:
    """A course root for exercise-1 that is wrong in several ways at once."""
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises" / "exercise-1", root / "exercises" / "exercise-1")
    solution = root / "solutions" / "exercise-1" / "submission.py"
    solution.parent.mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "exercise-1" / "submission.py", solution)  # the stub!
    mutants = solution.parent / "mutants"
    mutants.mkdir()
    no_wait = (ROOT / "solutions" / "exercise-1" / "mutants" / "no_wait.py").read_text()
    # Declares only half of what it fails.
    (mutants / "no_wait.py").write_text(no_wait.replace(
        "# must-fail: sync-before-stop covers-device-work", "# must-fail: sync-before-stop"))
    (mutants / "no_header.py").write_text("x = 1\n")
    stubs = root / "src" / "syncgrade" / "stubs" / "exercise-1"
    shutil.copytree(root / "exercises" / "exercise-1", stubs)
    (stubs / "README.md").write_text("# an older statement\n")
    return root


def test_validate_fails_on_a_wrong_setup(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    root = _wrong_root(tmp_path)
    assert main(["validate", "exercise-1", "--runs", "1", "--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out
    problems = out.split("Problems:")[1]
    expected = {
        "exercise-1 solution": "got failed: covers-device-work sync-before-stop",
        "exercise-1 mutant no_wait": "got also failed covers-device-work",
        "exercise-1 mutant no_header": "no '# mutant: ...' line",
        "exercise-1 coverage": "not covered: runs numpy-match sample-count",
        "exercise-1 stub-copy": "shipped README.md differs",
    }
    for item, got in expected.items():
        line = next((ln for ln in problems.splitlines() if ln.strip().startswith(item)), "")
        assert got in line, (item, line)
    rows = [ln for ln in out.splitlines() if ln.startswith("exercise-1")]
    assert any(" stub " in ln and ln.endswith("ok") for ln in rows)  # the stub is fine
    assert any(" stable " in ln and ln.endswith("ok") for ln in rows)


def _report(status: str, failed: tuple[str, ...] = ()) -> Any:
    """Just enough of a GradeReport for ``verdict_of``."""
    checks = [types.SimpleNamespace(id=i, status="failed", hint="h") for i in failed]
    return types.SimpleNamespace(status=status, cause="graded", score=0.0, max_score=1.0,
                                 checks=checks,
                                 grading=types.SimpleNamespace(internal_error=None))


def test_verdicts_that_differ_between_runs_fail(tmp_path: Path) -> None:
    reports = iter([_report("passed"), _report("failed", ("runs",))])
    targets = [v.Target("exercise-1", "solution", tmp_path / "x.py", "solution")]
    got = v.grade_targets(targets, 2, 1, tmp_path, lambda e, p, n: next(reports))
    rows = v.graded_rows(v.Plan(targets=targets), None, got, 2)
    assert [(r.item, r.ok) for r in rows] == [("solution", False), ("stable", False)]
    assert rows[0].got == "varies: passed 0/1 | failed: runs"
    assert rows[1].got == "varies: solution"


def test_an_exception_while_grading_is_a_row_not_a_crash(tmp_path: Path) -> None:
    def broken(exercise_id: str, path: Path, name: str) -> Any:
        raise RuntimeError("rubric error in exercise-1: nope")

    targets = [v.Target("exercise-1", "solution", tmp_path / "x.py", "solution")]
    rows = v.graded_rows(v.Plan(targets=targets), None,
                         v.grade_targets(targets, 1, 1, tmp_path, broken), 1)
    assert not rows[0].ok
    assert rows[0].got == "grader fault: RuntimeError: rubric error in exercise-1: nope"


def test_json_output(monkeypatch: pytest.MonkeyPatch,
                     capsys: pytest.CaptureFixture[str]) -> None:
    import json

    rows = [v.Row("exercise-1", "solution", "full marks", "passed 10/10", True),
            v.Row("exercise-1", "coverage", "every check failed by a mutant",
                  "not covered: runs", False)]
    monkeypatch.setattr(v, "validate",
                        lambda ids, root, **kw: v.Outcome(rows, list(ids), 3, 1.5))
    assert main(["validate", "exercise-1", "--json", "--root", str(ROOT)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] is False
    assert data["rows"][1] == {"exercise": "exercise-1", "item": "coverage",
                               "expected": "every check failed by a mutant",
                               "got": "not covered: runs", "ok": False}
    assert data["summary"].startswith("INVALID  1 exercise(s), 2 items, 1 problem(s)")
