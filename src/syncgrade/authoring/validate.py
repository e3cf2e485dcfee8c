"""`grade validate`: prove a course's exercises right before learners see them.

For each exercise of a course folder (:mod:`syncgrade.courses`: ``<id>/exercise.py``,
``README.md``, ``stub.py``, ``solution.py``, ``mutants.toml``, ``corpus/{correct,flawed}/``),
every item below becomes one :class:`Row` (exercise, item, expected, got, ok); the
exercise is valid when every row is ok. Everything that can be checked without grading is
checked first, for every exercise (:func:`plan_exercise`); then the files are graded.

``rubric``
    the declaration ``exercise.py`` loads (a load-time ``RubricError`` is reported here, as
    the author's error, naming the file) and has no ``TODO`` left (``grade new`` scaffolds
    with TODOs).
``files``
    the statement, stub, solution and ``mutants.toml`` exist, and none says
    ``TODO(author)``.
``mutants``
    ``mutants.toml`` parses (TOML, only ``[[mutant]]`` entries, no name given twice).
``stub markers``
    only when ``solution.py`` has solution markers (:mod:`syncgrade.authoring.markers`):
    they pair up, and ``stub.py`` is exactly the stub they make (``grade stub``).
``mutant <name>``
    the entry is well formed, its ``expect-fail`` ids are checks of the exercise (a typo
    gets the nearest id), its edits apply to the current solution (each ``old`` text
    exactly once), and the edited solution, graded as ``<name>.py``, fails exactly the
    checks its ``expect-fail`` declares (others pass or are skipped), in every run (see
    :mod:`syncgrade.authoring.mutants`).
``corpus``
    ``corpus/correct/`` and ``corpus/flawed/`` exist and each holds at least one ``.py``
    file: a missing or an empty folder is a problem.
``corpus <kind>/<name>``
    the file's header (:func:`syncgrade.authoring.cases.corpus_case`) is valid and of its
    folder's kind, its ``expect-fail`` ids are checks of the exercise (with the nearest id
    for a typo), and graded it gets full marks (``correct/``) or fails exactly the checks
    it names (``flawed/``), in every run.
``coverage``
    every check of the exercise is declared by at least one mutant.
``stable``
    each graded file got the same verdict (status and set of failed checks) in every run.
``hidden-inputs``
    see :func:`hidden_input_problems`: what is compared is documented there.
``solution``
    ``solution.py`` gets full marks, in every run.
``stub``
    ``stub.py`` fails cleanly, in every run: graded (cause ``graded``), not full marks,
    ``runs`` passed (when the exercise has that check), every failed check has a hint.

``unchanged``
    only with ``changed=True``: the exercise was valid and its fingerprint
    (:mod:`syncgrade.authoring.fingerprint`) has not changed since; nothing else of it
    is checked.

Grading goes through :func:`syncgrade.grade` with the course (sandboxed child per file),
``jobs`` files at once on threads. A rubric error that grading raises is the exercise's:
it stops that exercise's grading and is reported once, on its ``rubric`` row. The
problems are listed root cause first (:func:`root_cause_first`). Only the CLI prints;
this module returns rows.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from syncgrade.authoring.cases import (
    CaseError,
    co_firing,
    corpus_case,
    edit_lines,
    entry_label,
    load_mutant_table,
    mutant_case,
)
from syncgrade.authoring.fingerprint import (
    cache_file,
    fingerprint,
    read_valid,
    write_valid,
)
from syncgrade.authoring.markers import MarkerError, stub_from_solution
from syncgrade.authoring.mutants import Mutant
from syncgrade.courses import (
    CORPUS_KINDS,
    ExerciseFiles,
    did_you_mean,
    exercise_number,
)
from syncgrade.pool import ENV_VAR as SHARED_POOL_VAR
from syncgrade.pool import WarmPool

if TYPE_CHECKING:
    from syncgrade.courses import Course

STUB_FILES = ("README.md", "submission.py")
"""How a learner gets the stub (``grade start``): the statement, and ``stub.py`` under this
name."""
_TODO = re.compile(r"\bTODO\b")
AUTHOR_TODO = "TODO(author)"


class ValidateUsageError(Exception):
    """A mistake in how validation was asked for (an unknown exercise)."""


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
    rubric: str = ""  # the author's error grading raised (a RubricError), first line

    def describe(self) -> str:
        if self.rubric:
            return self.rubric
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
        # An exercise without a ``runs`` check: the file ran when nothing stopped it.
        runs_passed=(runs.status == "passed" if runs is not None
                     else report.cause == "graded"),
        unhinted=frozenset(i for i in failed if not checks[i].hint),
        fault=report.grading.internal_error or "",
    )


# ------------------------------------------------------------------------ the rubrics

@dataclass
class Rubrics:
    """The course's declarations that load, and the author's error for each that does not."""

    exercises: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # exercise id -> the error's text


def load_rubrics(course: Course) -> Rubrics:
    """The course's exercises and the author's errors that kept any of them out.

    Opening a course leaves a broken declaration out of its exercises and keeps its
    ``RubricError`` ("rubric error in exercise-N: ...") in ``Course.errors``;
    ``Course.get`` also checks each declaration's data (``make_inputs``, references) on
    first use. Both kinds become error entries here, never a traceback.
    """
    from syncgrade.rubric import RubricError

    errors = {k: str(v) for k, v in course.errors.items()}
    exercises = {}
    for exercise_id in course.exercises:
        try:
            exercises[exercise_id] = course.get(exercise_id)
        except RubricError as exc:
            errors[exercise_id] = str(exc)
    return Rubrics(exercises, errors)


def todo_lines(source: str) -> list[int]:
    """Line numbers of the rubric source that still say TODO."""
    return [n for n, line in enumerate(source.splitlines(), 1) if _TODO.search(line)]


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it is inside it, else as it is."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def author_todos(paths: Iterable[Path], root: Path) -> list[str]:
    """``file:line`` of every ``TODO(author)`` marker ``grade new`` left in these files
    (a learner stub's own ``TODO`` is part of the exercise and is not flagged)."""
    found = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        found += [f"{_shown(path, root)}:{n}" for n, line in enumerate(lines, 1)
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


# ------------------------------------------------------------------------ grading

@dataclass(frozen=True)
class Target:
    """One file to grade and what it must come to. A mutant has no file: ``source`` is
    the edited solution, ``path`` its mutants.toml, ``display_name`` ``<name>.py``."""

    exercise: str
    item: str
    path: Path
    kind: str  # "solution" | "stub" | "mutant" | "correct" | "flawed" (the corpus)
    must_fail: frozenset[str] = frozenset()
    source: str | None = None
    display_name: str = ""
    may_fail: frozenset[str] = frozenset()  # a flawed corpus file's '# may-fail' checks


GradeFn = Callable[[str, Path | None, str, str | None], Any]
"""``(exercise_id, path, display_name, source)``: grade the file, or ``source`` (then
``path`` is None)."""

FULL_MARKS_KINDS = ("solution", "correct")
FAILING_KINDS = ("mutant", "flawed")


def course_grade(course: Course, pool: WarmPool | None = None) -> GradeFn:
    """The :data:`GradeFn` that grades with :func:`syncgrade.grade` in ``course``, each
    grade in a child of ``pool`` when one is given (still a fresh child per grade)."""
    def grade(exercise_id: str, path: Path | None, display_name: str,
              source: str | None) -> Any:
        import syncgrade

        return syncgrade.grade(exercise_id, path, source=source, display_name=display_name,
                               course=course, pool=pool)

    return grade


def grade_targets(targets: Sequence[Target], runs: int, jobs: int, root: Path,
                  grade_fn: GradeFn) -> dict[Target, list[Verdict]]:
    """Grade every target ``runs`` times, ``jobs`` at once; verdicts in run order.

    A :class:`~syncgrade.rubric.RubricError` raised by grading (a declared workload that
    fails on its own code) is the exercise's, whatever file is graded: the first one
    stops that exercise's grading (each later target of it gets the same verdict without
    being graded), and it is reported once, on the ``rubric`` row (:func:`validate`)."""
    from syncgrade.errors import RubricError

    stopped: dict[str, str] = {}

    def one(target: Target) -> Verdict:
        name = target.display_name or _shown(target.path, root)
        if target.exercise in stopped:
            return _rubric_verdict(stopped[target.exercise])
        try:
            path = None if target.source is not None else target.path
            return verdict_of(grade_fn(target.exercise, path, name, target.source))
        except RubricError as exc:
            stopped.setdefault(target.exercise, str(exc).splitlines()[0])
            return _rubric_verdict(stopped[target.exercise])
        except Exception as exc:  # a crash of the grader: shown on the file's row
            return Verdict("error", "grader_fault", frozenset(), 0.0, 0.0, False,
                           fault=f"{type(exc).__name__}: {exc}")

    order = [t for _ in range(runs) for t in targets]  # run 1 of everything, then run 2...
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        verdicts = list(pool.map(one, order))
    results: dict[Target, list[Verdict]] = {t: [] for t in targets}
    for target, verdict in zip(order, verdicts, strict=True):
        results[target].append(verdict)
    return results


def _rubric_verdict(error: str) -> Verdict:
    return Verdict("error", "rubric_error", frozenset(), 0.0, 0.0, False, rubric=error)


def judge(target: Target, verdict: Verdict, check_ids: set[str]) -> str:
    """Why ``verdict`` does not meet ``target``'s expectation ("" when it does)."""
    if verdict.fault or verdict.status == "error":
        return verdict.describe()
    if target.kind in FULL_MARKS_KINDS:
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
    may_fail = target.may_fail | co_firing(target.must_fail)
    if verdict.failed - may_fail != target.must_fail:
        extra = verdict.failed - target.must_fail - may_fail
        missing = target.must_fail - verdict.failed
        parts = ([f"also failed {' '.join(sorted(extra))}"] if extra else []) + (
            [f"did not fail {' '.join(sorted(missing))}"] if missing else [])
        return "; ".join(parts)
    return ""


def expectation(target: Target) -> str:
    if target.kind in FULL_MARKS_KINDS:
        return "full marks"
    if target.kind == "stub":
        return "fails cleanly, runs passes"
    return "fails: " + " ".join(sorted(target.must_fail))


def unknown_checks(declared: Iterable[str], check_ids: Sequence[str]) -> str:
    """"" when every declared id is a check of the exercise; else which are not, each
    with the nearest check id when there is one."""
    unknown = sorted(set(declared) - set(check_ids))
    return "; ".join(f"unknown check id {i!r}{did_you_mean(i, check_ids)}" for i in unknown)


# ------------------------------------------------------------------------ one exercise

@dataclass
class Plan:
    """The rows decided without grading, and the files still to grade, per exercise."""

    rows: list[Row] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    mutants: list[Mutant] = field(default_factory=list)


def plan_exercise(exercise_id: str, course: Course, rubrics: Rubrics | None = None, *,
                  grade_corpus: bool = True) -> Plan:
    """Every row decided without grading, and the files to grade. A declaration that does
    not load still gets its files, mutants and corpus checked (only its check ids cannot
    be). ``grade_corpus=False``: check the corpus files' headers without grading them."""
    rubrics = rubrics or load_rubrics(course)
    plan = Plan()
    row = plan.rows.append
    root = course.root
    files = course.files.get(exercise_id) or ExerciseFiles(exercise_id, root / exercise_id)
    exercise = rubrics.exercises.get(exercise_id)
    source = _read(files.declaration)
    if exercise is None:
        got = rubrics.errors.get(exercise_id) or f"no declaration {_shown(files.declaration, root)}"
        row(Row(exercise_id, "rubric", "loads", got, False))
    else:
        todos = todo_lines(source)
        got = (f"TODO left on line(s) {', '.join(map(str, todos))} of "
               f"{_shown(files.declaration, root)}" if todos else
               f"{len(exercise.checks)} checks, max score {_num(exercise.max_score)}")
        row(Row(exercise_id, "rubric", "loads, no TODO left", got, not todos))
    check_ids = [c.id for c in exercise.checks] if exercise is not None else []

    present = {"statement": files.readme, "stub": files.stub, "solution": files.solution,
               "mutants": files.mutants}
    missing = [f"{k} ({_shown(p, root)})" for k, p in present.items() if not p.is_file()]
    corpus = {kind: files.corpus_files(kind) for kind in CORPUS_KINDS}
    left = author_todos([*present.values(), *(p for ps in corpus.values() for p in ps)],
                        root)
    entries, table = _mutant_entries(files.mutants, root)
    got = ("missing: " + ", ".join(missing) if missing else
           "TODO(author) left in " + ", ".join(left) if left else
           f"all present, {len(entries)} mutants")
    row(Row(exercise_id, "files", "statement, stub, solution, mutants.toml; no TODO(author)",
            got, not missing and not left))
    if files.mutants.is_file():
        row(Row(exercise_id, "mutants", "a valid mutants.toml", table, bool(entries)))
    _plan_markers(plan, files, root)

    gradable = exercise is not None
    if gradable and files.solution.is_file():
        plan.targets.append(Target(exercise_id, "solution", files.solution, "solution"))
    if gradable and files.stub.is_file():
        plan.targets.append(Target(exercise_id, "stub", files.stub, "stub",
                                   display_name="submission.py"))
    _plan_mutants(plan, files, entries, check_ids if gradable else None, root)

    _plan_corpus(plan, files, corpus, check_ids if gradable else None, root, grade_corpus)

    if gradable:
        declared = set().union(*(m.expected_failures for m in plan.mutants))
        uncovered = [i for i in check_ids if i not in declared]
        row(Row(exercise_id, "coverage", "every check failed by a mutant",
                "not covered: " + " ".join(uncovered) if uncovered
                else f"all {len(check_ids)} checks covered", not uncovered))
        stub_texts = {"README.md": _read(files.readme), "submission.py": _read(files.stub)}
        try:
            problems, summary = hidden_input_problems(exercise, stub_texts, source)
        except Exception as exc:  # make_inputs itself is broken: the author's error
            from syncgrade.rubric.validation import author_traceback

            problems, summary = [author_traceback("make_inputs()", exc)], ""
        row(Row(exercise_id, "hidden-inputs", "differ from the stub's data",
                "; ".join(problems) or summary, not problems))
    return plan


def first_difference(expected: str, got: str) -> str:
    """``"line N differs"`` for the first line where ``got`` is not ``expected``, or
    ``""`` when they are equal."""
    if expected == got:
        return ""
    want, have = expected.splitlines(), got.splitlines()
    for number, (a, b) in enumerate(zip(want, have, strict=False), 1):
        if a != b:
            return f"line {number} differs"
    return f"line {min(len(want), len(have)) + 1} differs"


def _plan_markers(plan: Plan, files: ExerciseFiles, root: Path) -> None:
    """The ``stub markers`` row, when ``solution.py`` has solution markers
    (:mod:`syncgrade.authoring.markers`): they pair up, and ``stub.py`` is exactly the
    stub they make."""
    if not files.solution.is_file():
        return
    shown = _shown(files.solution, root)
    expected = f"{_shown(files.stub, root)} is what {shown}'s markers make"
    try:
        stub = stub_from_solution(_read(files.solution), shown)
    except MarkerError as exc:
        plan.rows.append(Row(files.id, "stub markers", expected, str(exc), False))
        return
    if stub is None:
        return
    difference = first_difference(stub, _read(files.stub))
    got = (f"{difference}: run `grade stub {files.id}`" if difference else "agrees")
    plan.rows.append(Row(files.id, "stub markers", expected, got, not difference))


def _plan_mutants(plan: Plan, files: ExerciseFiles, entries: list[Any],
                  check_ids: list[str] | None, root: Path) -> None:
    """A row for each mutant entry that is not valid (or whose edits no longer apply to
    the solution), and a target for each valid one when the rubric loads
    (``check_ids`` not None)."""
    exercise_id, row = files.id, plan.rows.append
    gradable = check_ids is not None
    solution = _read(files.solution) if files.solution.is_file() else None
    origin, seen = _shown(files.mutants, root), set[str]()
    lines = edit_lines(_read(files.mutants))
    for index, entry in enumerate(entries):
        item = f"mutant {entry_label(entry, index)}"
        try:
            mutant = mutant_case(entry, index, origin, exercise_id, files.mutants,
                                 lines[index] if index < len(lines) else ())
            if mutant.name in seen:
                raise CaseError(f"{origin}: mutant {mutant.name} given twice")
            seen.add(mutant.name)
            if solution is None:
                raise CaseError(f"{mutant.name}: no solution to apply its edits to")
            edited = mutant.apply(solution)
            if gradable and (unknown := unknown_checks(mutant.expected_failures, check_ids or [])):
                raise CaseError(f"{origin}: mutant {mutant.name}: {unknown}")
        except CaseError as exc:
            row(Row(exercise_id, item, "a valid entry; its edits apply to the solution",
                    str(exc), False))
            continue
        plan.mutants.append(mutant)
        if gradable:
            plan.targets.append(Target(exercise_id, item, files.mutants, "mutant",
                                       mutant.expected_failures, edited, f"{mutant.name}.py"))


def _plan_corpus(plan: Plan, files: ExerciseFiles, corpus: dict[str, list[Path]],
                 check_ids: list[str] | None, root: Path, grade: bool) -> None:
    """The ``corpus`` row, a row for each file whose header is wrong, and the files to
    grade. ``check_ids`` None: the declaration did not load (nothing is graded)."""
    exercise_id = files.id
    problems = []
    for kind, paths in corpus.items():
        folder = _shown(files.corpus / kind, root)
        if not (files.corpus / kind).is_dir():
            problems.append(f"no folder {folder}/")
        elif not paths:
            problems.append(f"{folder}/ holds no .py file")
    counts = ", ".join(f"{len(paths)} {kind}" for kind, paths in corpus.items())
    plan.rows.append(Row(exercise_id, "corpus", "correct/ and flawed/, each with files",
                         "; ".join(problems) or counts, not problems))
    for kind, paths in corpus.items():
        for path in paths:
            item = f"corpus {kind}/{path.stem}"
            try:
                case = corpus_case(path)
                if case.kind != kind:
                    raise CaseError(f"{_shown(path, root)}: a {case.kind} file's header in "
                                    f"{kind}/")
                if check_ids is not None and (
                        unknown := unknown_checks(case.expected_failures | case.may_fail,
                                                  check_ids)):
                    raise CaseError(f"{_shown(path, root)}: {unknown}")
            except CaseError as exc:
                plan.rows.append(Row(exercise_id, item, "a valid header", str(exc), False))
                continue
            if check_ids is not None and grade:
                plan.targets.append(Target(exercise_id, item, path, kind,
                                           case.expected_failures,
                                           display_name="submission.py",
                                           may_fail=case.may_fail))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _mutant_entries(path: Path, root: Path) -> tuple[list[Any], str]:
    """(the unchecked ``[[mutant]]`` entries of ``path``, what the ``mutants`` row says):
    no entries and the error when the file cannot be read or is not a mutants table."""
    if not path.is_file():
        return [], ""
    try:
        entries = load_mutant_table(path.read_text(encoding="utf-8"), _shown(path, root))
    except (CaseError, OSError, UnicodeDecodeError) as exc:
        return [], str(exc)
    return entries, f"{len(entries)} mutants"


def graded_rows(plan: Plan, exercise: Any, verdicts: dict[Target, list[Verdict]],
                runs: int) -> list[Row]:
    """The rows that need grading: one per target, then ``stable``. A file that fails a
    check the solution fails too says so (the solution is the root cause, fix it first).
    """
    check_ids = {c.id for c in exercise.checks} if exercise is not None else set()
    rows, unstable = [], []
    solution = next((verdicts[t][0].failed for t in plan.targets if t.kind == "solution"),
                    frozenset[str]())
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
        if problems and target.kind != "solution":
            got += _cascade(got_all[0].failed - target.must_fail, solution)
        rows.append(Row(target.exercise, target.item, expectation(target), got, not problems))
    if plan.targets:
        rows.append(Row(plan.targets[0].exercise, "stable", f"same verdict in {runs} runs",
                        "varies: " + ", ".join(unstable) if unstable
                        else f"{len(plan.targets)} files, {runs} runs each", not unstable))
    return rows


def _cascade(unexpected: frozenset[str], solution: frozenset[str]) -> str:
    """Said after a file's problem when the solution itself fails some of the checks the
    file was not expected to fail: those failures follow from the solution's."""
    shared = sorted(unexpected & solution)
    if not shared:
        return ""
    return f" (the solution fails {' '.join(shared)} too: fix the solution first)"


ROOT_CAUSES = ("rubric", "files", "solution", "stub markers", "stub")
"""The items whose problems cause others, in the order :attr:`Outcome.problems` lists
them first within an exercise: a rubric that does not load (or a workload that fails
on its own code) stops everything; a missing file, a solution that does not get full
marks and a wrong stub make mutants and corpus files fail in cascade."""


def root_cause_first(rows: Sequence[Row]) -> list[Row]:
    """``rows`` in exercise order, each exercise's :data:`ROOT_CAUSES` items first (in
    that order), the others as they were."""
    exercises = list(dict.fromkeys(r.exercise for r in rows))

    def rank(row: Row) -> tuple[int, int]:
        cause = ROOT_CAUSES.index(row.item) if row.item in ROOT_CAUSES else len(ROOT_CAUSES)
        return exercises.index(row.exercise), cause

    return sorted(rows, key=rank)


@dataclass(frozen=True)
class Outcome:
    rows: list[Row]
    exercises: list[str]
    grades: int
    seconds: float
    skipped: list[str] = field(default_factory=list)
    """Exercises not re-checked: unchanged since they were last valid (``--changed``)."""

    @property
    def problems(self) -> list[Row]:
        """The rows that are not ok, the root causes of each exercise first
        (:func:`root_cause_first`)."""
        return root_cause_first([r for r in self.rows if not r.ok])


def resolve_ids(requested: Sequence[str], all_: bool, course: Course) -> list[str]:
    """The exercises to validate; :class:`ValidateUsageError` for an id the course has no
    folder for (with the nearest id), or for a course with no exercise at all."""
    known = list(course.files)
    if all_:
        if not known:
            raise ValidateUsageError(f"the course {course.root} has no exercise folder "
                                     "(create one with `grade new`)")
        return known
    if not requested:
        raise ValidateUsageError("name an exercise (e.g. exercise-1) or use --all")
    for exercise_id in requested:
        if exercise_id not in known:
            raise ValidateUsageError(course.unknown(exercise_id))
    return sorted(dict.fromkeys(requested), key=lambda e: (exercise_number(e), e))


def validate(exercise_ids: Sequence[str], course: Course, *, runs: int = 3, jobs: int = 2,
             rubrics: Rubrics | None = None, grade_fn: GradeFn | None = None,
             grade_corpus: bool = True, changed: bool = False) -> Outcome:
    """Validate ``exercise_ids`` of ``course``: every row, in exercise order (the rows
    decided without grading first, then one per graded file, then ``stable``). Every
    exercise is checked before any file is graded.

    Each exercise found valid is recorded with its :func:`fingerprint` (in
    :func:`cache_file`); one found invalid is forgotten. ``changed``: an exercise whose
    fingerprint is the one recorded (nothing it depends on changed since it was last
    valid, with the same options) is not re-checked: its one row, ``unchanged``, says so
    (:attr:`Outcome.skipped` lists it)."""
    started = time.perf_counter()
    rubrics = rubrics or load_rubrics(course)
    options = f"runs={runs} corpus-grades={grade_corpus}"
    keys = {e: fingerprint(course.files.get(e) or ExerciseFiles(e, course.root / e),
                           course.root, options) for e in exercise_ids}
    store = cache_file(course.root)
    recorded = read_valid(store)
    skipped = [e for e in exercise_ids if changed and recorded.get(e) == keys[e]]
    checked = [e for e in exercise_ids if e not in skipped]
    plans = {e: plan_exercise(e, course, rubrics, grade_corpus=grade_corpus)
             for e in checked}
    targets = [t for p in plans.values() for t in p.targets]
    graded: list[int] = []
    with validation_pool(course, jobs, grade_fn is None and bool(targets)) as pool:
        inner = grade_fn or course_grade(course, pool)

        def counted(*args: Any) -> Any:
            graded.append(1)  # the grades done, not those a rubric error stopped
            return inner(*args)

        verdicts = grade_targets(targets, runs, jobs, course.root, counted)
    rows: list[Row] = []
    for exercise_id in exercise_ids:
        if exercise_id in skipped:
            rows.append(Row(exercise_id, "unchanged", "re-checked when a file changed",
                            "skipped: no file changed since it was last valid "
                            f"({options})", True))
            continue
        plan = plans[exercise_id]
        error = next((v.rubric for t in plan.targets for v in verdicts[t] if v.rubric), "")
        if error:  # the exercise's own fault: said once, on its rubric row
            mine = [_stopped(r, error, len(plan.targets)) for r in plan.rows]
        else:
            mine = plan.rows + graded_rows(plan, rubrics.exercises.get(exercise_id),
                                           verdicts, runs)
        rows += mine
        if all(r.ok for r in mine):
            recorded[exercise_id] = keys[exercise_id]
        else:
            recorded.pop(exercise_id, None)
    write_valid(store, recorded)
    return Outcome(rows, list(exercise_ids), len(graded), time.perf_counter() - started,
                   skipped)


@contextlib.contextmanager
def validation_pool(course: Course, jobs: int, wanted: bool) -> Iterator[WarmPool | None]:
    """A warm pool of ``jobs`` children for validation's grades (``wanted``), unless
    ``SYNCGRADE_WARM_POOL`` already gives the process one: each grade still runs in a
    fresh child, with jax imported before the grade asks for it (109 grades of
    exercise-1 took 90 s cold and 35 s warm on 2 idle cores)."""
    if not wanted or os.environ.get(SHARED_POOL_VAR, "").strip() not in ("", "0"):
        yield None  # (asked, not started here: the first grade starts the shared one)
        return
    with WarmPool(max(1, jobs), defer_refill=False, hidden=course.hidden_paths) as pool:
        yield pool


def _stopped(row: Row, error: str, files: int) -> Row:
    """The ``rubric`` row of an exercise whose grading raised a rubric error: not ok, with
    the error (every other row is kept as it was; no graded file is judged)."""
    if row.item != "rubric":
        return row
    return Row(row.exercise, row.item, row.expected,
               f"{error} (grading stopped: none of its {files} files is judged)", False)
