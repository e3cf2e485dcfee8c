"""`grade validate`: its parts without grading, then the command end to end on a real
exercise of the built-in course (valid) and on deliberately wrong course folders (invalid,
exit 1, the problem in the table)."""

from __future__ import annotations

import shutil
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from syncgrade.authoring import validate as v
from syncgrade.authoring.cases import Edit, EditError, apply_edits, corpus_case
from syncgrade.authoring.mutants import mutant_text, read_mutants
from syncgrade.cli import main
from syncgrade.courses import builtin_course, open_course

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions


# ------------------------------------------------------------------ parts, no grading

def test_every_mutant_applies_to_its_solution() -> None:
    for exercise_id in builtin_course().files:
        solution = (SOLUTIONS / exercise_id / "solution.py").read_text()
        for mutant in read_mutants(None, exercise_id):
            edited = mutant.apply(solution)
            assert edited != solution and mutant.expected_failures, mutant.name
            compile(edited, f"{mutant.name}.py", "exec")  # a mistake, not a typo


def test_an_edit_applies_once_in_order() -> None:
    text = "a = 1\nb = 2\n"
    assert apply_edits(text, [Edit("a = 1\n", "a = 3\n"), Edit("a = 3\nb", "c")]) == "c = 2\n"
    for edits, found in (([Edit("x = 9\n", "")], "is not in"),
                         ([Edit(" = ", "=")], "occurs 2 times in"),
                         ([Edit("a = 1\n", ""), Edit("a = 1\n", "")], "is not in")):
        with pytest.raises(EditError, match=f"^m: edit {len(edits)} of {len(edits)} does "
                                            f"not apply: .* {found} the solution"):
            apply_edits(text, edits, name="m")
    # Each refusal says where the text went: the nearest line, the lines of each
    # occurrence, or that its lines are there but not together.
    for edit, says in ((Edit("a = 11\n", ""), "; nearest: line 1 'a = 1' (for 'a = 11')"),
                       (Edit(" = ", "="), "; it occurs at lines 1, 2: make it longer"),
                       (Edit("b = 2\na = 1", ""), "each of its lines is in the solution, "
                                                   "but not together as written")):
        with pytest.raises(EditError) as raised:
            apply_edits(text, [Edit(edit.old, edit.new, "m.toml:7")], name="m")
        assert str(raised.value).startswith("m.toml:7: m: edit 1 of 1 does not apply")
        assert says in str(raised.value), str(raised.value)


def test_edit_lines_are_the_lines_of_each_edit_s_old_text() -> None:
    from syncgrade.authoring.cases import edit_lines

    text = ('[[mutant]]\nname = "a"\n  [[mutant.edit]]\n  old = "x"\n  new = ""\n'
            '  [[mutant.edit]]\n  new = ""\n  old = """\ny\n"""\n[[mutant]]\nname = "b"\n')
    assert edit_lines(text) == [[4, 8], []]


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


def test_judge_lets_interval_clean_co_fire_with_sample_duration_one_way() -> None:
    # The co-firing rule (cases.CO_FIRING): host work inside the interval is also a longer
    # sample, so a file expected to fail interval-clean may fail sample-duration or pass.
    ids = {"runs", "interval-clean", "sample-duration", "covers-device-work"}
    host_work = v.Target("exercise-1", "flawed h", Path("h.py"), "flawed",
                         frozenset({"interval-clean"}))
    assert v.judge(host_work, _verdict(failed=("interval-clean",)), ids) == ""
    assert v.judge(host_work, _verdict(failed=("interval-clean", "sample-duration")),
                   ids) == ""
    assert v.judge(host_work, _verdict(failed=("interval-clean", "covers-device-work")),
                   ids) == "also failed covers-device-work"
    # Not the other way: a mechanism twin must fail sample-duration, and interval-clean
    # failing beside it is a second flaw.
    twin = v.Target("exercise-1", "flawed t", Path("t.py"), "flawed",
                    frozenset({"sample-duration"}))
    assert v.judge(twin, _verdict(failed=("sample-duration", "interval-clean")),
                   ids) == "also failed interval-clean"
    assert v.judge(twin, _verdict(failed=("runs",)), ids).endswith(
        "did not fail sample-duration")


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
    course = builtin_course()
    rubrics = v.load_rubrics(course)
    for exercise_id, exercise in rubrics.exercises.items():
        files = course.folder(exercise_id)
        texts = {"README.md": files.readme.read_text(), "submission.py": files.stub.read_text()}
        problems, _ = v.hidden_input_problems(exercise, texts, files.declaration.read_text())
        assert problems == [], exercise_id


def test_a_rubric_error_is_reported_as_the_authors_and_nothing_is_graded() -> None:
    rubrics = v.Rubrics({}, {"exercise-1": "rubric error in exercise-1: bad parameter"})
    plan = v.plan_exercise("exercise-1", builtin_course(), rubrics)
    assert (plan.rows[0].item, plan.rows[0].got, plan.rows[0].ok) == (
        "rubric", "rubric error in exercise-1: bad parameter", False)
    # Its files, mutants and corpus headers are still checked; nothing is graded.
    assert {"files", "mutants", "corpus"} <= {r.item for r in plan.rows}
    assert plan.targets == []


def test_load_rubrics_collects_rubric_errors() -> None:
    from syncgrade.rubric import RubricError

    good = types.SimpleNamespace(id="exercise-1")

    def get(exercise_id: str) -> Any:
        if exercise_id == "exercise-2":
            raise RubricError("rubric error in exercise-2: make_inputs lacks 'x'")
        return good

    course = types.SimpleNamespace(
        exercises={"exercise-1": good, "exercise-2": object()}, get=get,
        errors={"exercise-3": RubricError("rubric error in exercise-3: no such workload")})
    rubrics = v.load_rubrics(course)  # type: ignore[arg-type]
    assert rubrics.exercises == {"exercise-1": good}
    assert rubrics.errors == {
        "exercise-2": "rubric error in exercise-2: make_inputs lacks 'x'",
        "exercise-3": "rubric error in exercise-3: no such workload"}


# ------------------------------------------------------------------ the command

def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    for argv in (["validate", "exercise-99"], ["validate"],
                 ["validate", "--course", str(tmp_path), "--all"],
                 ["validate", "--course", str(tmp_path / "nowhere"), "--all"],
                 ["validate", "exercise-1", "--all"], ["new", "Exercise-X", "--title", "T"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("grade: ") and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err


def test_validate_passes_on_a_real_exercise(capsys: pytest.CaptureFixture[str]) -> None:
    # exercise-2 is the cheapest to grade (a concept exercise: no timing in the child).
    assert main(["validate", "exercise-2", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    assert "VALID  1 exercise(s)" in out
    for item in ("rubric", "files", "mutants", "corpus", "coverage", "hidden-inputs",
                 "solution", "stub", "mutant sync_after_stop", "corpus correct/",
                 "corpus flawed/", "stable"):
        assert f" {item}" in out, item


def test_an_unknown_exercise_suggests_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "exercise-33"]) == 2
    assert "did you mean 'exercise-3'" in capsys.readouterr().err


WRONG_MUTANTS = '''\
[[mutant]]
name = "no_wait"  # declares only half of what it fails (the "solution" is the stub)
flaw = "no wait"
expect-fail = ["sync-before-stop"]

  [[mutant.edit]]
  old = """
        out = fn(*args)
"""
  new = """
        out = fn(*args)  # and no wait
"""

[[mutant]]
name = "stale_edit"  # the solution no longer has this line
flaw = "milliseconds"
expect-fail = ["sample-count"]

  [[mutant.edit]]
  old = "        out = fn(*args)\\n"
  new = "        out = fn(*args)\\n"

  [[mutant.edit]]
  old = "        samples.append((stop - start) / 1000)\\n"
  new = "        samples.append(stop - start)\\n"

[[mutant]]
name = "no_flaw"
expect-fail = ["runs"]
edit = [{old = "import", new = "imprt"}]
'''


def _wrong_root(tmp_path: Path) -> Path:
    """A course folder whose exercise-1 is wrong in several ways at once (and has no
    corpus)."""
    root = tmp_path / "course"
    folder = root / "exercise-1"
    folder.mkdir(parents=True)
    for name in ("exercise.py", "README.md", "stub.py"):
        shutil.copy(COURSE / "exercise-1" / name, folder / name)
    shutil.copy(COURSE / "exercise-1" / "stub.py", folder / "solution.py")  # the stub!
    (folder / "mutants.toml").write_text(WRONG_MUTANTS)
    return root


def test_validate_fails_on_a_wrong_setup(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    root = _wrong_root(tmp_path)
    assert main(["validate", "exercise-1", "--runs", "1", "--course", str(root)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out
    problems = out.split("Problems:")[1]
    expected = {
        "exercise-1 solution": "got failed: covers-device-work sync-before-stop",
        "exercise-1 mutant no_wait": "got also failed covers-device-work",
        "exercise-1 mutant stale_edit": "stale_edit: edit 2 of 2 does not apply: its old "
                                         "text ('samples.append((stop - start) / 1000)'...) "
                                         "is not in the solution",
        "exercise-1 mutant no_flaw": "exercise-1/mutants.toml: mutant no_flaw: no 'flaw'",
        "exercise-1 coverage": "not covered: runs numpy-match sample-count",
        "exercise-1 corpus": "no folder exercise-1/corpus/correct/; no folder "
                             "exercise-1/corpus/flawed/",
    }
    for item, got in expected.items():
        line = next((ln for ln in problems.splitlines() if ln.strip().startswith(item)), "")
        assert got in line, (item, line)
    # The root cause first: the solution failing its own checks comes before the files
    # that fail in cascade, and each of those says the solution fails those checks too.
    listed = [ln.strip() for ln in problems.splitlines() if ln.startswith("  exercise-1")]
    assert listed[0].startswith("exercise-1 solution:"), listed
    assert listed.index(next(ln for ln in listed if ln.startswith("exercise-1 mutant no_wait"))
                        ) > 0
    assert "(the solution fails covers-device-work too: fix the solution first)" in next(
        ln for ln in listed if ln.startswith("exercise-1 mutant no_wait"))
    rows = [ln for ln in out.splitlines() if ln.startswith("exercise-1")]
    assert any(" stub " in ln and ln.endswith("ok") for ln in rows)  # the stub is fine
    assert any(" stable " in ln and ln.endswith("ok") for ln in rows)


def test_an_edit_that_no_longer_applies_names_the_mutant_and_the_edit(tmp_path: Path) -> None:
    root = tmp_path / "course"
    shutil.copytree(COURSE / "exercise-1", root / "exercise-1")
    solution = root / "exercise-1" / "solution.py"  # a course that keeps its own solutions
    shutil.copy(SOLUTIONS / "exercise-1" / "solution.py", solution)
    # The solution moves on: its wait line is reworded; no_wait's edit still has the old one.
    solution.write_text(solution.read_text().replace(
        "out.block_until_ready()  # wait for *this* call's output before stopping",
        "out.block_until_ready()  # wait for this call's output"))
    plan = v.plan_exercise("exercise-1", open_course(root))
    rows = {r.item: r for r in plan.rows}
    assert not rows["mutant no_wait"].ok
    got = rows["mutant no_wait"].got
    toml = (root / "exercise-1" / "mutants.toml").read_text().splitlines()
    entry = next(n for n, ln in enumerate(toml, 1) if ln == 'name = "no_wait"')
    line = next(n for n, ln in enumerate(toml, 1) if n > entry and ln.strip() == 'old = """')
    # Where the edit is written, the mutant and the edit, then the nearest solution line.
    assert got.startswith(f"exercise-1/mutants.toml:{line}: no_wait: edit 1 of 1 does not "
                          "apply: its old text "), got
    assert "out.block_until_ready()  # wait for *this* call's output before stopping" in got
    assert "is not in the solution (it must occur exactly once)" in got
    moved = solution.read_text().splitlines().index(
        "        out.block_until_ready()  # wait for this call's output") + 1
    assert got.endswith(f"; nearest: line {moved} \"out.block_until_ready()  # wait for this "
                        "call's output\" (for \"out.block_until_ready()  # wait for *this* "
                        "call's output before stopping\")"), got
    assert "mutant no_wait" not in {t.item for t in plan.targets}
    assert {t.item for t in plan.targets} >= {"solution", "mutant milliseconds"}


def test_write_mutants_writes_the_edited_solutions(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["validate", "--write-mutants", str(out)]) == 0
    assert capsys.readouterr().out.startswith("wrote ")
    expected = {}
    for exercise_id in builtin_course().files:
        solution = (SOLUTIONS / exercise_id / "solution.py").read_text()
        for mutant in read_mutants(None, exercise_id):
            source = apply_edits(solution, mutant.edits)
            expected[out / exercise_id / f"{mutant.name}.py"] = (mutant, source)
    assert sorted(out.glob("*/*.py")) == sorted(expected)
    for path, (mutant, source) in expected.items():
        text = path.read_text()
        assert text == mutant.header() + source == mutant_text(mutant, solution_of(path))
        case = corpus_case(path)  # the header reads as a flawed corpus file's
        assert (case.kind, case.description, case.expected_failures) == (
            "flawed", mutant.description, mutant.expected_failures)


def solution_of(path: Path) -> str:
    return (SOLUTIONS / path.parent.name / "solution.py").read_text()


def test_write_mutants_writes_nothing_when_an_edit_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _wrong_root(tmp_path)
    out = tmp_path / "out"
    assert main(["validate", "exercise-1", "--write-mutants", str(out),
                 "--course", str(root)]) == 1
    assert "no_flaw: no 'flaw'" in capsys.readouterr().err
    assert not out.exists()


def _report(status: str, failed: tuple[str, ...] = ()) -> Any:
    """Just enough of a GradeReport for ``verdict_of``."""
    checks = [types.SimpleNamespace(id=i, status="failed", hint="h") for i in failed]
    return types.SimpleNamespace(status=status, cause="graded", score=0.0, max_score=1.0,
                                 checks=checks,
                                 grading=types.SimpleNamespace(internal_error=None))


def test_verdicts_that_differ_between_runs_fail(tmp_path: Path) -> None:
    reports = iter([_report("passed"), _report("failed", ("runs",))])
    targets = [v.Target("exercise-1", "solution", tmp_path / "x.py", "solution")]
    got = v.grade_targets(targets, 2, 1, tmp_path, lambda e, p, n, s: next(reports))
    rows = v.graded_rows(v.Plan(targets=targets), None, got, 2)
    assert [(r.item, r.ok) for r in rows] == [("solution", False), ("stable", False)]
    assert rows[0].got == "varies: passed 0/1 | failed: runs"
    assert rows[1].got == "varies: solution"


def test_an_exception_while_grading_is_a_row_not_a_crash(tmp_path: Path) -> None:
    def broken(exercise_id: str, path: Path | None, name: str, source: str | None) -> Any:
        raise RuntimeError("rubric error in exercise-1: nope")

    targets = [v.Target("exercise-1", "solution", tmp_path / "x.py", "solution")]
    rows = v.graded_rows(v.Plan(targets=targets), None,
                         v.grade_targets(targets, 1, 1, tmp_path, broken), 1)
    assert not rows[0].ok
    assert rows[0].got == "grader fault: RuntimeError: rubric error in exercise-1: nope"


def test_a_rubric_error_while_grading_is_reported_once_and_stops_the_exercise(
        tmp_path: Path) -> None:
    from syncgrade.rubric import RubricError

    graded: list[str] = []
    error = ("rubric error in exercise-1: /c/exercise-1/exercise.py:9: the declared workload "
             "`f` failed on its own code (line 2 of its source) when call 'main' ran it: "
             "AttributeError: module 'jax.numpy' has no attribute 'tahn'")

    def broken(exercise_id: str, path: Path | None, name: str, source: str | None) -> Any:
        graded.append(name)
        raise RubricError(error)

    targets = [v.Target("exercise-1", item, tmp_path / f"{item}.py", kind)
               for item, kind in (("solution", "solution"), ("stub", "stub"),
                                  ("mutant a", "mutant"), ("corpus correct/b", "correct"))]
    course = types.SimpleNamespace(root=tmp_path, files={})
    plan = v.Plan(rows=[v.Row("exercise-1", "rubric", "loads", "10 checks", True),
                        v.Row("exercise-1", "files", "present", "all present", True)],
                  targets=targets)
    verdicts = v.grade_targets(targets, 3, 1, tmp_path, broken)
    assert len(graded) == 1  # the first grade stopped the exercise's others
    monkey = pytest.MonkeyPatch()
    monkey.setattr(v, "plan_exercise", lambda *a, **k: plan)
    monkey.setattr(v, "grade_targets", lambda *a, **k: verdicts)
    try:
        outcome = v.validate(["exercise-1"], course,  # type: ignore[arg-type]
                             rubrics=v.Rubrics({"exercise-1": object()}, {}))
    finally:
        monkey.undo()
    assert [(p.item, p.got) for p in outcome.problems] == [
        ("rubric", f"{error} (grading stopped: none of its 4 files is judged)")]
    assert "grader fault" not in str(outcome.rows)


def test_json_output(monkeypatch: pytest.MonkeyPatch,
                     capsys: pytest.CaptureFixture[str]) -> None:
    import json

    rows = [v.Row("exercise-1", "solution", "full marks", "passed 10/10", True),
            v.Row("exercise-1", "coverage", "every check failed by a mutant",
                  "not covered: runs", False)]
    monkeypatch.setattr(v, "validate",
                        lambda ids, course, **kw: v.Outcome(rows, list(ids), 3, 1.5))
    assert main(["validate", "exercise-1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] is False
    assert data["rows"][1] == {"exercise": "exercise-1", "item": "coverage",
                               "expected": "every check failed by a mutant",
                               "got": "not covered: runs", "ok": False}
    assert data["summary"].startswith("INVALID  1 exercise(s), 2 items, 1 problem(s)")


def test_validation_grades_through_its_own_warm_pool_unless_one_is_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    course = builtin_course()
    monkeypatch.delenv("SYNCGRADE_WARM_POOL", raising=False)
    with v.validation_pool(course, 2, wanted=False) as none:
        assert none is None  # a grade function of the caller's, or nothing to grade
    monkeypatch.setenv("SYNCGRADE_WARM_POOL", "1")
    with v.validation_pool(course, 2, wanted=True) as shared:
        assert shared is None  # the process-wide pool serves the grades
    monkeypatch.delenv("SYNCGRADE_WARM_POOL")
    with v.validation_pool(course, 1, wanted=True) as pool:
        assert pool is not None and pool.size == 1 and not pool.closed
    assert pool.closed  # its children are killed and its folders removed after
