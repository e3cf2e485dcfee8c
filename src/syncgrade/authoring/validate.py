"""`grade validate`: prove an exercise's rubric right before learners see it.

For each exercise, against a course checkout (``root``, holding ``exercises/`` and
``solutions/``), every item below becomes one :class:`Row` (exercise, item, expected, got,
ok); the exercise is valid when every row is ok:

``rubric``
    the rubric module loads (a load-time ``RubricError`` is reported here, as the author's
    error) and its source has no ``TODO`` left (``grade new`` scaffolds with TODOs).
``files``
    the statement, stub, solution and at least one mutant exist.
``solution``
    ``solutions/<id>/submission.py`` gets full marks, in every run.
``stub``
    ``exercises/<id>/submission.py`` fails cleanly, in every run: graded (cause
    ``graded``), not full marks, ``runs`` passed, every failed check has a hint.
``mutant <name>``
    ``solutions/<id>/mutants/<name>.py`` fails exactly the checks its ``# must-fail:`` header
    declares (others pass or are skipped), in every run, and each declared id is a check
    of the rubric (see :mod:`syncgrade.authoring.mutants`).
``coverage``
    every check of the rubric is declared by at least one mutant.
``stable``
    each graded file got the same verdict (status and set of failed checks) in every run.
``hidden-inputs``
    see :func:`hidden_input_problems`: what is compared is documented there.
``stub-copy``
    the stub that ships in the package (``src/syncgrade/stubs/<id>/``) is byte-identical to
    ``exercises/<id>/``.

Grading goes through :func:`syncgrade.grade` (sandboxed child per file), ``jobs`` files at
once on threads. Only the CLI prints; this module returns rows.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from syncgrade.authoring.mutants import Mutant, MutantError, mutant_dir, mutant_paths, read_mutant

STUB_FILES = ("README.md", "submission.py")
_ID = re.compile(r"exercise-(\d+)$")
_TODO = re.compile(r"\bTODO\b")
AUTHOR_TODO = "TODO(author)"


class ValidateUsageError(Exception):
    """A mistake in how validation was asked for (unknown exercise, no course root)."""


@dataclass(frozen=True)
class Row:
    """One line of the validation table."""

    exercise: str
    item: str
    expected: str
    got: str
    ok: bool


@dataclass(frozen=True)
class Verdict:
    """What one grade of one file came to: enough to compare runs and expectations."""

    status: str
    cause: str
    failed: frozenset[str]
    score: float
    max_score: float
    runs_passed: bool
    unhinted: frozenset[str] = frozenset()  # failed checks without a hint
    fault: str = ""  # the grader's internal error, or an exception grading raised

    def describe(self) -> str:
        if self.fault:
            return f"grader fault: {self.fault}"
        if self.status == "passed":
            return f"passed {_num(self.score)}/{_num(self.max_score)}"
        failed = " ".join(sorted(self.failed)) or "nothing"
        cause = "" if self.cause == "graded" else f" ({self.cause})"
        return f"{self.status}{cause}: {failed}"


def _num(x: float) -> str:
    return f"{x:g}"


def verdict_of(report: Any) -> Verdict:
    """The :class:`Verdict` of a :class:`~syncgrade.models.GradeReport`."""
    checks = {c.id: c for c in report.checks}
    failed = frozenset(i for i, c in checks.items() if c.status == "failed")
    runs = checks.get("runs")
    return Verdict(
        status=report.status, cause=report.cause, failed=failed,
        score=report.score, max_score=report.max_score,
        runs_passed=runs is not None and runs.status == "passed",
        unhinted=frozenset(i for i in failed if not checks[i].hint),
        fault=report.grading.internal_error or "",
    )


# ------------------------------------------------------------------------ the course root

def default_root() -> Path | None:
    """The current directory when it is a course checkout, else the checkout syncgrade was
    installed from in editable mode, else ``None``."""
    for candidate in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if is_course_root(candidate):
            return candidate
    return None


def is_course_root(path: Path) -> bool:
    return (path / "exercises").is_dir() and (path / "solutions").is_dir()


def folder_ids(root: Path) -> list[str]:
    """Exercise ids that have a folder under ``exercises/`` or ``solutions/``."""
    ids = {p.name for base in ("exercises", "solutions") if (root / base).is_dir()
           for p in (root / base).iterdir() if p.is_dir() and _ID.match(p.name)}
    return sorted(ids, key=exercise_number)


def exercise_number(exercise_id: str) -> int:
    match = _ID.match(exercise_id)
    return int(match.group(1)) if match else 1 << 30


# ------------------------------------------------------------------------ the rubrics

@dataclass
class Rubrics:
    """The installed rubrics, or the error that stopped them loading."""

    exercises: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # exercise id -> the error's text


def load_rubrics() -> Rubrics:
    """The installed rubrics and the author's errors that kept any of them out.

    ``syncgrade.rubric`` leaves a broken rubric out of ``EXERCISES`` and keeps its
    ``RubricError`` ("rubric error in exercise-N: ...") in ``RUBRIC_ERRORS``;
    ``get_exercise`` also checks each rubric's data (``make_inputs``, references) on first
    use. Both kinds become error entries here, never a traceback.
    """
    from syncgrade import rubric

    rubric_error = getattr(rubric, "RubricError", None)
    errors = {k: str(v) for k, v in getattr(rubric, "RUBRIC_ERRORS", {}).items()}
    exercises = {}
    for exercise_id in rubric.EXERCISES:
        try:
            exercises[exercise_id] = rubric.get_exercise(exercise_id)
        except Exception as exc:
            if rubric_error is None or not isinstance(exc, rubric_error):
                raise
            errors[exercise_id] = str(exc)
    return Rubrics(exercises, errors)


def rubric_source(exercise: Any) -> tuple[str, str]:
    """(path, text) of the module that declares ``exercise``: the installed
    ``syncgrade.rubric.exercise_N`` whose ``EXERCISE`` it is, else the module that defines
    its ``make_inputs``; ("", "") when neither can be read."""
    module = sys.modules.get(f"syncgrade.rubric.exercise_{exercise_number(exercise.id)}")
    try:
        if module is not None and getattr(module, "EXERCISE", None) is exercise:
            path = inspect.getsourcefile(module)
        else:
            path = inspect.getsourcefile(exercise.make_inputs)
        return (path or "", Path(path).read_text(encoding="utf-8") if path else "")
    except (OSError, TypeError):
        return "", ""


def todo_lines(source: str) -> list[int]:
    """Line numbers of the rubric source that still say TODO."""
    return [n for n, line in enumerate(source.splitlines(), 1) if _TODO.search(line)]


def author_todos(paths: Iterable[Path], root: Path) -> list[str]:
    """``file:line`` of every ``TODO(author)`` marker ``grade new`` left in these files
    (a learner stub's own ``TODO`` is part of the exercise and is not flagged)."""
    found = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        found += [f"{path.relative_to(root)}:{n}" for n, line in enumerate(lines, 1)
                  if AUTHOR_TODO in line]
    return found


# ------------------------------------------------------------------------ hidden inputs

_SEED_CALLS = {"default_rng", "RandomState", "seed", "PRNGKey", "key", "Generator"}
_SHAPE_FIRST_ARG = {"zeros", "ones", "empty", "full", "reshape", "broadcast_to"}


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _int_tuple(node: ast.AST | None) -> tuple[int, ...] | None:
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        values = [e.value for e in node.elts
                  if isinstance(e, ast.Constant) and type(e.value) is int]
        if len(values) == len(node.elts):
            return tuple(int(v) for v in values if isinstance(v, int))
    return None


def _module_ints(tree: ast.AST) -> dict[str, int]:
    return {t.id: node.value.value for node in getattr(tree, "body", [])
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
            for t in node.targets if isinstance(t, ast.Name)}


def code_blocks(text: str, filename: str) -> list[str]:
    """The Python code in a file: the file itself, or a README's fenced python blocks."""
    if not filename.endswith(".md"):
        return [text]
    return re.findall(r"```(?:python|py)\n(.*?)```", text, flags=re.S)


def data_facts(sources: Iterable[str]) -> tuple[set[int], set[tuple[int, ...]]]:
    """(seeds, shapes) that code builds data from.

    Seeds: the integer literal (or module-level int constant) given to a seeding call
    (``default_rng``, ``RandomState``, ``seed``, ``PRNGKey``, ``key``), and module-level int
    constants whose name contains ``SEED``. Shapes: integer tuples given as ``size=`` or
    ``shape=``, or as the first argument of ``zeros``/``ones``/``empty``/``full``/
    ``reshape``/``broadcast_to``. Code that does not parse contributes nothing.
    """
    seeds: set[int] = set()
    shapes: set[tuple[int, ...]] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        constants = _module_ints(tree)
        seeds.update(v for k, v in constants.items() if "SEED" in k.upper())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            if name in _SEED_CALLS and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and type(arg.value) is int:
                    seeds.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id in constants:
                    seeds.add(constants[arg.id])
            for kw in node.keywords:
                if kw.arg in ("size", "shape") and (shape := _int_tuple(kw.value)):
                    shapes.add(shape)
            if name in _SHAPE_FIRST_ARG and node.args and (shape := _int_tuple(node.args[0])):
                shapes.add(shape)
    return seeds, shapes


def _arrays(value: Any, prefix: str = "") -> list[tuple[str, np.ndarray]]:
    if isinstance(value, np.ndarray):
        return [(prefix, value)]
    if isinstance(value, dict):
        return [a for k, v in value.items() for a in _arrays(v, f"{prefix}.{k}".lstrip("."))]
    if isinstance(value, list | tuple):
        return [a for i, v in enumerate(value) for a in _arrays(v, f"{prefix}[{i}]")]
    return []


def hidden_input_problems(exercise: Any, stub_texts: dict[str, str],
                          rubric_text: str) -> tuple[list[str], str]:
    """(problems, summary) comparing the hidden inputs with the stub's data.

    What is compared, exactly:

    1. every array in ``make_inputs()`` (searched through dicts, lists and tuples) against
       the shapes the stub and its README build (:func:`data_facts`): a hidden array of a
       shape the stub builds is a problem (the grader must use other row and feature
       counts, so a hard-coded answer fails);
    2. the seeds in the rubric module's source against the seeds the stub and README use
       (:func:`data_facts`): the same seed is a problem;
    3. ``make_inputs()`` called twice gives equal arrays (hidden inputs are fixed per
       rubric version, so verdicts are reproducible).

    An exercise whose ``make_inputs()`` returns no arrays (a concept exercise) has nothing
    to compare and passes.
    """
    code = [block for name, text in stub_texts.items() for block in code_blocks(text, name)]
    stub_seeds, stub_shapes = data_facts(code)
    rubric_seeds, _ = data_facts([rubric_text])
    first, second = exercise.make_inputs(), exercise.make_inputs()
    arrays = _arrays(first)
    problems = [f"hidden {name} has the stub's shape {array.shape}"
                for name, array in arrays if tuple(array.shape) in stub_shapes]
    problems += [f"the rubric uses the stub's seed {seed}"
                 for seed in sorted(rubric_seeds & stub_seeds)]
    again = dict(_arrays(second))
    changed = [name for name, array in arrays
               if name not in again or not np.array_equal(array, again[name], equal_nan=True)]
    problems += [f"make_inputs() is not reproducible: {name} changed between calls"
                 for name in changed]
    if not arrays:
        return problems, "no hidden arrays (nothing computed on inputs)"
    return problems, f"{len(arrays)} arrays; no stub shape or seed, reproducible"


# ------------------------------------------------------------------------ the stub copy

def shipped_stub_dir(root: Path, exercise_id: str) -> Any:
    """Where the stub that ships lives: ``root/src/syncgrade/stubs/<id>`` in a checkout
    that has one, else the installed package's copy (what ``grade start`` hands out)."""
    local = root / "src" / "syncgrade" / "stubs"
    if local.exists():
        return local / exercise_id
    return resources.files("syncgrade").joinpath("stubs", exercise_id)


def stub_copy_problems(root: Path, exercise_id: str) -> list[str]:
    shipped = shipped_stub_dir(root, exercise_id)
    problems = []
    for name in STUB_FILES:
        original = root / "exercises" / exercise_id / name
        copy = shipped.joinpath(name)
        if not copy.is_file():
            problems.append(f"{name} missing from the shipped stubs")
        elif not original.is_file() or copy.read_bytes() != original.read_bytes():
            problems.append(f"shipped {name} differs from exercises/{exercise_id}/{name}")
    return problems


# ------------------------------------------------------------------------ grading

@dataclass(frozen=True)
class Target:
    """One file to grade and what it must come to."""

    exercise: str
    item: str
    path: Path
    kind: str  # "solution" | "stub" | "mutant"
    must_fail: frozenset[str] = frozenset()


GradeFn = Callable[[str, Path, str], Any]


def _default_grade(exercise_id: str, path: Path, display_name: str) -> Any:
    import syncgrade

    return syncgrade.grade(exercise_id, path, display_name=display_name)


def grade_targets(targets: Sequence[Target], runs: int, jobs: int, root: Path,
                  grade_fn: GradeFn = _default_grade) -> dict[Target, list[Verdict]]:
    """Grade every target ``runs`` times, ``jobs`` at once; verdicts in run order."""
    def one(target: Target) -> Verdict:
        try:
            name = str(target.path.relative_to(root))
        except ValueError:
            name = str(target.path)
        try:
            return verdict_of(grade_fn(target.exercise, target.path, name))
        except Exception as exc:  # the author's error (e.g. a RubricError), not a crash
            return Verdict("error", "grader_fault", frozenset(), 0.0, 0.0, False,
                           fault=f"{type(exc).__name__}: {exc}")

    order = [t for _ in range(runs) for t in targets]  # run 1 of everything, then run 2...
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        verdicts = list(pool.map(one, order))
    results: dict[Target, list[Verdict]] = {t: [] for t in targets}
    for target, verdict in zip(order, verdicts, strict=True):
        results[target].append(verdict)
    return results


def judge(target: Target, verdict: Verdict, check_ids: set[str]) -> str:
    """Why ``verdict`` does not meet ``target``'s expectation ("" when it does)."""
    if verdict.fault or verdict.status == "error":
        return verdict.describe()
    if target.kind == "solution":
        return "" if verdict.status == "passed" else verdict.describe()
    if target.kind == "stub":
        if verdict.status == "passed":
            return "the stub gets full marks"
        if verdict.cause != "graded" or not verdict.runs_passed:
            return f"does not run cleanly: {verdict.describe()}"
        if verdict.unhinted:
            return f"no hint for {' '.join(sorted(verdict.unhinted))}"
        return ""
    unknown = target.must_fail - check_ids
    if unknown:
        return f"declares unknown check(s) {' '.join(sorted(unknown))}"
    if verdict.failed != target.must_fail:
        extra = verdict.failed - target.must_fail
        missing = target.must_fail - verdict.failed
        parts = ([f"also failed {' '.join(sorted(extra))}"] if extra else []) + (
            [f"did not fail {' '.join(sorted(missing))}"] if missing else [])
        return "; ".join(parts)
    return ""


def expectation(target: Target) -> str:
    if target.kind == "solution":
        return "full marks"
    if target.kind == "stub":
        return "fails cleanly, runs passes"
    return "fails: " + " ".join(sorted(target.must_fail))


# ------------------------------------------------------------------------ one exercise

@dataclass
class Plan:
    """The rows decided without grading, and the files still to grade, per exercise."""

    rows: list[Row] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    mutants: list[Mutant] = field(default_factory=list)


def plan_exercise(exercise_id: str, root: Path, rubrics: Rubrics) -> Plan:
    plan = Plan()
    row = plan.rows.append
    exercise = rubrics.exercises.get(exercise_id)
    error = rubrics.errors.get(exercise_id)
    if exercise is None:
        got = error or f"no module syncgrade/rubric/exercise_{exercise_number(exercise_id)}.py"
        row(Row(exercise_id, "rubric", "loads", got, False))
        return plan
    path, source = rubric_source(exercise)
    todos = todo_lines(source)
    got = (f"TODO left on line(s) {', '.join(map(str, todos))} of {Path(path).name}"
           if todos else f"{len(exercise.checks)} checks, max score {_num(exercise.max_score)}")
    row(Row(exercise_id, "rubric", "loads, no TODO left", got, not todos))
    check_ids = [c.id for c in exercise.checks]

    files = {
        "statement": root / "exercises" / exercise_id / "README.md",
        "stub": root / "exercises" / exercise_id / "submission.py",
        "solution": root / "solutions" / exercise_id / "submission.py",
    }
    missing = [f"{k} ({p.relative_to(root)})" for k, p in files.items() if not p.is_file()]
    paths = mutant_paths(root, exercise_id)
    if not paths:
        missing.append(f"mutants ({mutant_dir(root, exercise_id).relative_to(root)}/*.py)")
    left = author_todos([*files.values(), *paths], root)
    got = ("missing: " + ", ".join(missing) if missing else
           "TODO(author) left in " + ", ".join(left) if left else
           f"all present, {len(paths)} mutants")
    row(Row(exercise_id, "files", "statement, stub, solution, mutants; no TODO(author)",
            got, not missing and not left))

    if files["solution"].is_file():
        plan.targets.append(Target(exercise_id, "solution", files["solution"], "solution"))
    if files["stub"].is_file():
        plan.targets.append(Target(exercise_id, "stub", files["stub"], "stub"))
    for mutant_path in paths:
        try:
            mutant = read_mutant(mutant_path)
        except MutantError as exc:
            row(Row(exercise_id, f"mutant {mutant_path.stem}", "a valid header", str(exc),
                    False))
            continue
        plan.mutants.append(mutant)
        plan.targets.append(Target(exercise_id, f"mutant {mutant.name}", mutant.path,
                                   "mutant", mutant.must_fail))

    declared = set().union(*(m.must_fail for m in plan.mutants)) if plan.mutants else set()
    uncovered = [i for i in check_ids if i not in declared]
    row(Row(exercise_id, "coverage", "every check failed by a mutant",
            "not covered: " + " ".join(uncovered) if uncovered
            else f"all {len(check_ids)} checks covered", not uncovered))

    stub_texts = {name: (root / "exercises" / exercise_id / name).read_text(encoding="utf-8")
                  for name in STUB_FILES if (root / "exercises" / exercise_id / name).is_file()}
    try:
        problems, summary = hidden_input_problems(exercise, stub_texts, source)
    except Exception as exc:  # make_inputs itself is broken: the author's error
        problems, summary = [f"make_inputs() raised {type(exc).__name__}: {exc}"], ""
    row(Row(exercise_id, "hidden-inputs", "differ from the stub's data",
            "; ".join(problems) or summary, not problems))

    copy_problems = stub_copy_problems(root, exercise_id)
    row(Row(exercise_id, "stub-copy", "shipped stub = exercises/",
            "; ".join(copy_problems) or "identical", not copy_problems))
    return plan


def graded_rows(plan: Plan, exercise: Any, verdicts: dict[Target, list[Verdict]],
                runs: int) -> list[Row]:
    """The rows that need grading: one per target, then ``stable``."""
    check_ids = {c.id for c in exercise.checks} if exercise is not None else set()
    rows, unstable = [], []
    for target in plan.targets:
        got_all = verdicts[target]
        distinct = {(v.status, v.failed) for v in got_all}
        if len(distinct) > 1:
            unstable.append(target.item)
        problems = [p for p in (judge(target, v, check_ids) for v in got_all) if p]
        if len(distinct) > 1:
            got = "varies: " + " | ".join(v.describe() for v in got_all)
        else:
            got = problems[0] if problems else got_all[0].describe()
        rows.append(Row(target.exercise, target.item, expectation(target), got, not problems))
    if plan.targets:
        rows.append(Row(plan.targets[0].exercise, "stable", f"same verdict in {runs} runs",
                        "varies: " + ", ".join(unstable) if unstable
                        else f"{len(plan.targets)} files, {runs} runs each", not unstable))
    return rows


@dataclass(frozen=True)
class Outcome:
    rows: list[Row]
    exercises: list[str]
    grades: int
    seconds: float

    @property
    def problems(self) -> list[Row]:
        return [r for r in self.rows if not r.ok]


def resolve_ids(requested: Sequence[str], all_: bool, root: Path,
                rubrics: Rubrics) -> list[str]:
    """The exercises to validate; :class:`ValidateUsageError` for an id nobody knows."""
    known = set(rubrics.exercises) | set(folder_ids(root)) | set(rubrics.errors)
    if all_:
        return sorted(known, key=exercise_number)
    if not requested:
        raise ValidateUsageError("name an exercise (e.g. exercise-1) or use --all")
    for exercise_id in requested:
        if exercise_id not in known:
            listed = ", ".join(sorted(known, key=exercise_number)) or "none"
            raise ValidateUsageError(f"unknown exercise {exercise_id!r} (known: {listed})")
    return list(dict.fromkeys(requested))


def validate(exercise_ids: Sequence[str], root: Path, *, runs: int = 3, jobs: int = 2,
             rubrics: Rubrics | None = None, grade_fn: GradeFn = _default_grade) -> Outcome:
    """Validate ``exercise_ids`` against the course checkout ``root``: every row, in
    exercise order (static rows first, then one per graded file, then ``stable``)."""
    started = time.perf_counter()
    rubrics = rubrics or load_rubrics()
    plans = {e: plan_exercise(e, root, rubrics) for e in exercise_ids}
    targets = [t for p in plans.values() for t in p.targets]
    verdicts = grade_targets(targets, runs, jobs, root, grade_fn)
    rows: list[Row] = []
    for exercise_id, plan in plans.items():
        rows += plan.rows
        rows += graded_rows(plan, rubrics.exercises.get(exercise_id), verdicts, runs)
    return Outcome(rows, list(exercise_ids), len(targets) * runs,
                   time.perf_counter() - started)
