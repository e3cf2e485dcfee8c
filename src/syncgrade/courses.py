"""Courses: a course is a folder, and every entry point grades one.

A course folder holds an optional ``course.toml`` (``title = "..."``) and one folder per
exercise, named by the exercise id::

    my-course/
      course.toml                  title = "Benchmarking JAX"        (optional)
                                   solutions = "../solutions"        (optional)
      exercise-1/
        exercise.py                the declaration: EXERCISE = Exercise(...)  (hidden)
        README.md                  the statement learners read
        stub.py                    what `grade start` hands out (as submission.py)
        solution.py                the reference solution: full marks      (hidden)
        mutants.toml               known-wrong variants, as edits of the solution (hidden)
        corpus/correct/*.py        learner-like files that get full marks  (hidden)
        corpus/flawed/*.py         ... and files with the checks they fail (hidden)

An exercise folder is a sub-folder named ``exercise-N``, or any sub-folder holding an
``exercise.py``; every other sub-folder (``shared/``, ``.git``...) is not an exercise. Any
other file in an exercise folder (a learner's ``submission.py`` from ``grade start`` in a
checkout) is not course content: nothing reads, validates or ships it.

``course.toml``'s ``solutions`` keeps the reference solutions outside the course folder:
a folder path relative to the course folder, holding ``<exercise-id>/solution.py``. Without
it each exercise folder holds its own ``solution.py``. The built-in course uses it
(``exercises/`` and ``solutions/`` at the top of the checkout), so the statements and
stubs a learner works next to never sit beside a solution.

:func:`open_course` finds a course: a folder path; the name of an installed course (a
package declaring an entry point in the group ``syncgrade.courses`` whose value is a
callable or a module attribute giving the folder's path); ``None`` for
``$SYNCGRADE_COURSE`` when set, else the built-in course (the lesson's exercises:
:data:`BUILTIN_ROOT`).

Declarations are imported from their file path under a module name unique to the course
folder (two courses never clash), validated and resolved as they load
(:func:`~syncgrade.rubric.validation.validate_declaration`: registered titles and check
functions filled in, interval checks derived from the declared ``Samples``), and kept per
process. A broken
declaration never stops the course opening: that exercise is left out of
:attr:`Course.exercises`, its :class:`RubricError` (naming the file) is kept in
:attr:`Course.errors`, and :meth:`Course.get` raises it.

What the grading child may see is decided per course: nothing of its folder nor of its
solutions folder, ever (:attr:`Course.hidden_paths`, passed to the sandbox by the engine).
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import os
import re
import sys
import threading
import tomllib
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from syncgrade.errors import CourseError as CourseError  # re-exported
from syncgrade.errors import UnknownExercise
from syncgrade.rubric.base import Exercise
from syncgrade.rubric.validation import RubricError, validate_data, validate_declaration

_T = TypeVar("_T")
COURSE_ENV = "SYNCGRADE_COURSE"
ENTRY_POINT_GROUP = "syncgrade.courses"
PACKAGE_ROOT = Path(__file__).resolve().parent
PACKAGED_COURSE = PACKAGE_ROOT / "course"
"""The built-in course as a wheel installs it (``syncgrade/course/``: no solutions)."""
CHECKOUT_COURSE = PACKAGE_ROOT.parent.parent / "exercises"
"""The built-in course in a source checkout (an editable install): ``exercises/`` at the
top, its solutions in ``solutions/`` beside it (``course.toml``'s ``solutions``)."""
COURSE_FILE = "course.toml"


def builtin_root(packaged: Path, checkout: Path) -> Path:
    """``packaged`` when it holds a ``course.toml`` (a wheel install), else ``checkout``."""
    return packaged if (packaged / COURSE_FILE).is_file() else checkout


BUILTIN_ROOT = builtin_root(PACKAGED_COURSE, CHECKOUT_COURSE)
"""The built-in course: the lesson's exercises, in the course layout. The package's
``syncgrade/course/`` when it holds a ``course.toml`` (a wheel install), else the
checkout's ``exercises/``. (A checkout from before the move to ``exercises/`` can leave
``src/syncgrade/course/`` behind with only ``__pycache__`` folders in it: git does not
remove untracked files, and that must not read as an empty built-in course.)"""
DECLARATION = "exercise.py"
STATEMENT = "README.md"
STUB = "stub.py"
SOLUTION = "solution.py"
MUTANTS = "mutants.toml"
CORPUS = "corpus"
CORPUS_KINDS = ("correct", "flawed")
COURSE_KEYS = ("title", "solutions")
_EXERCISE_FOLDER = re.compile(r"exercise-(\d+)$")




@dataclass(frozen=True)
class ExerciseFiles:
    """Where one exercise's files are (they need not exist: ``grade validate`` says
    which are missing)."""

    id: str
    folder: Path
    solutions: Path | None = None
    """The course's solutions folder (``course.toml``'s ``solutions``), else ``None``:
    the solution is in the exercise folder."""

    @property
    def declaration(self) -> Path:
        return self.folder / DECLARATION

    @property
    def readme(self) -> Path:
        return self.folder / STATEMENT

    @property
    def stub(self) -> Path:
        return self.folder / STUB

    @property
    def solution(self) -> Path:
        """``<solutions>/<id>/solution.py`` when the course names a solutions folder,
        else ``solution.py`` in the exercise folder."""
        if self.solutions is not None:
            return self.solutions / self.id / SOLUTION
        return self.folder / SOLUTION

    @property
    def mutants(self) -> Path:
        return self.folder / MUTANTS

    @property
    def corpus(self) -> Path:
        return self.folder / CORPUS

    def corpus_files(self, kind: str) -> list[Path]:
        """``corpus/<kind>/*.py``, sorted (``_``-prefixed files are helpers)."""
        return sorted(p for p in (self.corpus / kind).glob("*.py")
                      if not p.name.startswith("_"))


@dataclass
class Course:
    """One opened course: its folder, title and exercises.

    ``exercises``: the exercises whose declaration loaded and validated, in number order;
    ``errors``: why each other exercise folder did not; ``files``: every exercise folder
    (both kinds), in the same order; ``modules``: each loaded declaration's module.
    ``whole``: every declaration was loaded; a course :func:`open_exercise` opened for one
    exercise is not, and its ``exercises``, ``errors`` and ``modules`` hold only the
    declarations loaded so far (:meth:`get` loads any other on first use).
    """

    root: Path
    title: str
    solutions: Path | None = None
    exercises: dict[str, Exercise] = field(default_factory=dict)
    errors: dict[str, RubricError] = field(default_factory=dict)
    files: dict[str, ExerciseFiles] = field(default_factory=dict)
    modules: dict[str, ModuleType] = field(default_factory=dict)
    whole: bool = True
    _data_checked: set[str] = field(default_factory=set, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def builtin(self) -> bool:
        return self.root == BUILTIN_ROOT

    @property
    def hidden_paths(self) -> tuple[Path, ...]:
        """What the grading child must never see: the whole course folder (declarations,
        solutions, mutants, corpus) and its solutions folder when ``course.toml`` names
        one (whether it exists or not). Outside the jail's allowlist they are simply
        absent; inside it (the package, a venv's site-packages) they are masked."""
        return (self.root,) if self.solutions is None else (self.root, self.solutions)

    def get(self, exercise_id: str) -> Exercise:
        """The exercise, validated. Raises :class:`UnknownExercise` for an id the course
        has no folder for and :class:`RubricError` for a broken declaration. The first
        call per exercise also runs :func:`~syncgrade.rubric.validation.validate_data`
        (it calls ``make_inputs``/``make_references`` once)."""
        if not self.whole:
            self.declare(exercise_id)
        if exercise_id in self.errors:
            raise self.errors[exercise_id]
        try:
            exercise = self.exercises[exercise_id]
        except KeyError:
            raise UnknownExercise(self.unknown(exercise_id)) from None
        if exercise_id not in self._data_checked:
            with self._lock:
                if exercise_id not in self._data_checked:
                    validate_data(exercise)
                    self._data_checked.add(exercise_id)
        return exercise

    def declare(self, exercise_id: str) -> None:
        """Load and validate ``exercise_id``'s declaration unless it was already (its
        exercise, or its error, is kept); nothing for an id with no folder."""
        with self._lock:
            files = self.files.get(exercise_id)
            if (files is not None and exercise_id not in self.exercises
                    and exercise_id not in self.errors):
                _declare(self, files)

    def complete(self) -> None:
        """Load every declaration not loaded yet; the exercises then in number order."""
        with self._lock:
            for exercise_id in self.files:
                self.declare(exercise_id)
            self.exercises = _in_order(self.exercises, self.files)
            self.errors = _in_order(self.errors, self.files)
            self.modules = _in_order(self.modules, self.files)
            self.whole = True

    def unknown(self, exercise_id: str) -> str:
        """The one-line message for an id this course does not have, with the nearest
        id when there is one."""
        known = list(self.files)
        where = "" if self.builtin else f" in the course {self.root}"
        return (f"unknown exercise {exercise_id!r}{where}{did_you_mean(exercise_id, known)}"
                f" (known: {', '.join(known) or 'none'})")

    def folder(self, exercise_id: str) -> ExerciseFiles:
        """Where the exercise's files are; :class:`UnknownExercise` for an unknown id."""
        try:
            return self.files[exercise_id]
        except KeyError:
            raise UnknownExercise(self.unknown(exercise_id)) from None

    def module(self, exercise_id: str) -> ModuleType:
        """The loaded declaration module (its constants and helpers, for tests)."""
        self.get(exercise_id)
        return self.modules[exercise_id]


def _in_order(found: dict[str, _T], order: Iterable[str]) -> dict[str, _T]:
    return {key: found[key] for key in order if key in found}


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the nearest of ``choices``, else ``""``. A bare
    number (``1``) means the choice that ends with it (``exercise-1``)."""
    import difflib

    choices = list(choices)
    numbered = [c for c in choices if word.isdigit() and c.rsplit("-", 1)[-1] == word]
    close = numbered or difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ------------------------------------------------------------------ finding a course


def installed_courses() -> dict[str, Any]:
    """The entry points of the group ``syncgrade.courses``, by name (the first of each
    name: :func:`installed_course` refuses a name declared twice)."""
    return {name: points[0] for name, points in course_entry_points().items()}


def course_entry_points() -> dict[str, list[Any]]:
    """Every entry point of the group ``syncgrade.courses``, by name, in the order the
    environment lists them (a name two distributions declare has two)."""
    from importlib.metadata import entry_points

    found: dict[str, list[Any]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, []).append(ep)
    return found


def installed_course(name: str) -> Any:
    """The entry point of the installed course ``name``, or ``None``. A name that two
    installed distributions declare with different values is refused
    (:class:`CourseError` naming both), never resolved to whichever one the environment
    happens to list first."""
    points = course_entry_points().get(name, [])
    if len({ep.value for ep in points}) > 1:
        providers = sorted({_provider(ep) for ep in points})
        raise CourseError(
            f"{len(providers)} installed courses are named {name!r}: "
            f"{' and '.join(providers)}; uninstall one, or rename its entry point in the "
            f"group {ENTRY_POINT_GROUP!r}")
    return points[0] if points else None


def _provider(entry_point: Any) -> str:
    """``"pkg 1.0 (module:attr)"``: the distribution that declares an entry point."""
    dist = getattr(entry_point, "dist", None)
    name = f"{dist.name} {dist.version} " if dist is not None else ""
    return f"{name}({entry_point.value})"


def course_root(spec: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the course ``spec`` names, resolved; see :func:`open_course`.
    Raises :class:`CourseError`. Reads no declaration."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        spec = os.environ.get(COURSE_ENV, "").strip() or None
        if spec is None:
            return BUILTIN_ROOT
    path = Path(spec).expanduser()
    if path.is_dir() or path.resolve() == BUILTIN_ROOT:
        return path.resolve()
    text = os.fspath(spec)
    if isinstance(text, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", text):
        found = installed_course(text)
        if found is not None:
            return _entry_point_root(text, found)
    names = ", ".join(sorted(installed_courses()))
    raise CourseError(f"no course folder at {text}"
                      + (f" and no installed course of that name (installed: {names})"
                         if names else ""))


def _entry_point_root(name: str, entry_point: Any) -> Path:
    try:
        value = entry_point.load()
        if callable(value):
            value = value()
        path = Path(value).expanduser()
    except Exception as exc:  # the course package's own fault: say which
        raise CourseError(f"the installed course {name!r} ({entry_point.value}) failed: "
                          f"{type(exc).__name__}: {exc}") from None
    if not path.is_dir():
        raise CourseError(f"the installed course {name!r} ({entry_point.value}) names "
                          f"{path}, which is not a folder")
    return path.resolve()


_COURSES: dict[Path, Course] = {}
_PARTS: dict[Path, Course] = {}
"""Courses :func:`open_exercise` opened, not whole (yet): each with the declarations
asked for so far."""
_COURSES_LOCK = threading.RLock()


def open_course(spec: str | os.PathLike[str] | Course | None = None, *,
                reload: bool = False) -> Course:
    """The course ``spec`` names: a :class:`Course` (returned as is), a folder, the name of
    an installed course (entry point group ``syncgrade.courses``), or ``None``:
    ``$SYNCGRADE_COURSE`` when set, else the built-in course.

    Opened once per process and folder (``reload=True`` reads it again). Raises
    :class:`CourseError` when there is no such course or its ``course.toml`` is wrong;
    never for a broken declaration (see :attr:`Course.errors`)."""
    if isinstance(spec, Course):
        return spec
    return _open_root(course_root(spec), reload)


def _open_root(root: Path, reload: bool = False) -> Course:
    with _COURSES_LOCK:
        course = _COURSES.get(root)
        part = _PARTS.pop(root, None)
        if part is not None and not reload and course is None:
            part.complete()  # the declarations it loaded are kept: one object each
            course = _COURSES[root] = part
        elif course is None or reload:
            course = _COURSES[root] = _load(root)
        return course


def open_exercise(spec: str | os.PathLike[str] | Course | None,
                  exercise_id: str) -> Course:
    """The course ``spec`` names (as :func:`open_course`), with only ``exercise_id``'s
    declaration loaded and validated: what a process that grades one exercise needs (a
    platform's container: every other declaration's import and validation were seconds
    of a loaded machine's CPU before its grade could start). Every exercise folder is
    known (:attr:`Course.files`: an unknown id still gets its did-you-mean); any other
    declaration loads when first asked for (:meth:`Course.get`), and
    :func:`open_course` later completes this same course. A course already opened whole
    is returned as it is. Raises what :func:`open_course` raises; a broken declaration
    is raised by :meth:`Course.get`, as there."""
    if isinstance(spec, Course):
        return spec
    root = course_root(spec)
    with _COURSES_LOCK:
        course = _COURSES.get(root) or _PARTS.get(root)
        if course is None:
            title, solutions = read_config(root)
            course = _PARTS[root] = Course(root=root, title=title, solutions=solutions,
                                           whole=False)
            course.files.update((f.id, f) for f in exercise_folders(root, solutions))
    course.declare(exercise_id)
    return course


def builtin_course() -> Course:
    """The built-in course (whatever ``$SYNCGRADE_COURSE`` says)."""
    return _open_root(BUILTIN_ROOT)


def opened_roots() -> tuple[Path, ...]:
    """The folders of every course opened in this process so far."""
    with _COURSES_LOCK:
        return tuple(dict.fromkeys([*_COURSES, *_PARTS]))


def opened_hidden_paths() -> tuple[Path, ...]:
    """What the grading child must not see of every course opened in this process so far
    (each one's :attr:`Course.hidden_paths`: its folder and solutions folder)."""
    with _COURSES_LOCK:
        return tuple(p for course in [*_COURSES.values(), *_PARTS.values()]
                     for p in course.hidden_paths)


def course_hidden_paths(root: Path) -> tuple[Path, ...]:
    """A course folder's :attr:`Course.hidden_paths` without loading its declarations
    (only ``course.toml`` is read); :class:`CourseError` for a wrong ``course.toml``."""
    solutions = read_config(root)[1]
    return (root,) if solutions is None else (root, solutions)


def forget(root: Path) -> None:
    """Drop a course from the per-process cache (after ``grade new`` wrote into it)."""
    with _COURSES_LOCK:
        _COURSES.pop(root.resolve(), None)
        _PARTS.pop(root.resolve(), None)


# ------------------------------------------------------------------ loading


def read_title(root: Path) -> str:
    """The course's title: ``course.toml``'s ``title``, else the folder's name."""
    return read_config(root)[0]


def read_config(root: Path) -> tuple[str, Path | None]:
    """``course.toml``'s title (else the folder's name) and solutions folder (resolved;
    ``None`` when not named). :class:`CourseError` for a file that is wrong."""
    path = root / COURSE_FILE
    if not path.is_file():
        return root.name, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CourseError(f"{path}: cannot be read: {exc}") from None
    unknown = [k for k in data if k not in COURSE_KEYS]
    if unknown:
        raise CourseError(f"{path}: unknown key {unknown[0]!r}"
                          f"{did_you_mean(unknown[0], COURSE_KEYS)} (known: "
                          f"{', '.join(COURSE_KEYS)})")
    title = data.get("title", root.name)
    if not isinstance(title, str) or not title.strip() or "\n" in title.strip():
        raise CourseError(f"{path}: title must be one non-empty line")
    return title.strip(), _solutions_folder(path, root, data.get("solutions"))


def _solutions_folder(path: Path, root: Path, value: object) -> Path | None:
    """``solutions`` resolved against the course folder. It may not be the course folder
    nor a folder above it: the grading child is kept out of it whole."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or Path(value).is_absolute():
        raise CourseError(f"{path}: solutions must be a folder path relative to the course "
                          f"folder, such as \"../solutions\"")
    folder = (root / value.strip()).resolve()
    if folder == root.resolve() or root.resolve().is_relative_to(folder):
        raise CourseError(f"{path}: solutions = {value!r} is the course folder or holds "
                          "it; name a folder of its own")
    return folder


def exercise_number(exercise_id: str) -> int:
    match = _EXERCISE_FOLDER.match(exercise_id)
    return int(match.group(1)) if match else 1 << 30


def exercise_folders(root: Path, solutions: Path | None = None) -> list[ExerciseFiles]:
    """The course's exercise folders, in number order (then by name); ``solutions``: the
    course's solutions folder (:func:`read_config`)."""
    if not root.is_dir():
        return []
    found = [ExerciseFiles(p.name, p, solutions) for p in root.iterdir()
             if p.is_dir() and not p.name.startswith((".", "_"))
             and (_EXERCISE_FOLDER.match(p.name) or (p / DECLARATION).is_file())]
    return sorted(found, key=lambda f: (exercise_number(f.id), f.id))


def module_name(root: Path, exercise_id: str) -> str:
    """The declaration's module name: unique to the course folder and the exercise."""
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return f"_syncgrade_course_{digest}_{re.sub(r'[^0-9A-Za-z_]', '_', exercise_id)}"


def _load(root: Path) -> Course:
    title, solutions = read_config(root)
    course = Course(root=root, title=title, solutions=solutions)
    for files in exercise_folders(root, solutions):
        course.files[files.id] = files
        _declare(course, files)
    return course


def _declare(course: Course, files: ExerciseFiles) -> None:
    """Load one declaration into ``course``: its exercise and module, or its error."""
    try:
        module = load_declaration(course.root, files)
        # Validated and resolved here, by the loader: registered titles and check
        # functions filled in, the interval checks derived from its Samples.
        exercise = validate_declaration(getattr(module, "EXERCISE", None),
                                        expected_id=files.id)
    except RubricError as exc:
        course.errors[files.id] = exc
        return
    object.__setattr__(exercise, "folder", files.folder)
    course.exercises[files.id] = exercise
    course.modules[files.id] = module


def load_declaration(root: Path, files: ExerciseFiles) -> ModuleType:
    """Import ``exercise.py`` from its path; :class:`RubricError` naming the file when it
    is missing or raises while importing."""
    path = files.declaration
    if not path.is_file():
        raise RubricError(f"rubric error in {files.id}: no declaration {path} (it defines "
                          "EXERCISE = Exercise(...))")
    name = module_name(root, files.id)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RubricError(f"rubric error in {files.id}: {path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the author's file is broken: report, don't crash
        sys.modules.pop(name, None)
        raise _import_problem(files.id, path, exc) from None
    return module


def _import_problem(exercise_id: str, path: Path, exc: Exception) -> RubricError:
    """A declaration that raised while importing, as a one-line author's error that names
    the file and its own line (``path:line: failed to import: ...``), with Python's
    did-you-mean for a misspelt attribute or name (``Check.NUMPY_MACTH``)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.realpath(f.filename) == os.path.realpath(path)]
    line = f":{frames[-1].lineno}" if frames else ""
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = f":{exc.lineno}"
    return RubricError(f"rubric error in {exercise_id}: {path}{line}: failed to import: "
                       f"{type(exc).__name__}: {exc}{python_suggestion(exc)}")


_UNEXPECTED = re.compile(r"(?P<callee>[A-Za-z_][\w.]*)\(\) got an unexpected keyword "
                         r"argument '(?P<name>\w+)'")


def python_suggestion(exc: BaseException) -> str:
    """``". Did you mean: 'NUMPY_MATCH'?"`` for an ``AttributeError`` or ``NameError``
    whose name is a typo of one that exists, as Python's own traceback says it (Python
    adds it only when it prints a traceback, so a one-line message must add it itself),
    and for a ``TypeError`` naming an unexpected keyword of a callable the declaration
    can see (``CheckSpec(..., pionts=2)``: ``'points'``); ``""`` otherwise."""
    import difflib

    if " Did you mean" in str(exc):
        return ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    scope = {**tb.tb_frame.f_globals, **tb.tb_frame.f_locals} if tb is not None else {}
    name = getattr(exc, "name", None)
    choices: list[str] = []
    if isinstance(exc, AttributeError) and getattr(exc, "obj", None) is not None:
        choices = dir(exc.obj)
    elif isinstance(exc, NameError):
        choices = [*scope, *dir(builtins)]
    elif isinstance(exc, TypeError) and (found := _UNEXPECTED.search(str(exc))):
        name, choices = found["name"], _keywords(scope, found["callee"])
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name, [c for c in choices if not c.startswith("__")],
                                      n=1, cutoff=0.6)
    return f". Did you mean: {close[0]!r}?" if close else ""


def _keywords(scope: dict[str, Any], callee: str) -> list[str]:
    """The parameter names of ``callee`` (``"CheckSpec.__init__"``, ``"workload"``) looked
    up in ``scope`` (the failing frame's names; ``s.workload`` through ``s``)."""
    import inspect

    parts = callee.split(".")
    target = scope.get(parts[0])
    if target is None:  # a module's function the declaration calls through its module
        target = next((getattr(v, parts[0]) for v in scope.values()
                       if isinstance(v, ModuleType) and callable(getattr(v, parts[0], None))),
                      None)
    for part in parts[1:]:
        if part == "__init__" and isinstance(target, type):
            break
        target = getattr(target, part, None)
    try:
        return list(inspect.signature(target).parameters) if callable(target) else []
    except (TypeError, ValueError):
        return []


def get_exercise(exercise_id: str,
                 course: str | os.PathLike[str] | Course | None = None) -> Exercise:
    """The exercise ``exercise_id`` of ``course`` (default: ``$SYNCGRADE_COURSE``, else
    the built-in course), validated. Raises :class:`UnknownExercise` for an id the course
    has no folder for, :class:`RubricError` for a broken declaration and
    :class:`CourseError` (a ``ValueError``) for a course that cannot be opened. The first
    call per exercise and process also runs
    :func:`~syncgrade.rubric.validation.validate_data` (hidden input and reference names;
    it calls ``make_inputs``/``make_references`` once)."""
    return open_course(course).get(exercise_id)


EXERCISES: dict[str, Exercise]
"""The built-in course's exercises whose declaration is valid, in number order."""
RUBRIC_ERRORS: dict[str, RubricError]
"""Why each broken declaration of the built-in course was left out, by exercise id."""


def __getattr__(name: str) -> Any:
    if name in ("EXERCISES", "RUBRIC_ERRORS"):  # loaded on first use
        course = builtin_course()
        return course.exercises if name == "EXERCISES" else course.errors
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
