"""``grade package``: the bundles a platform needs to grade one exercise with syncgrade, and
the learner's course wheel.

    grade package PLATFORM EXERCISE [-o PATH] [--course DIR] [--wheel FILE]
                  [--timeout S] [--overhead S] [--memory GIB] [--html]
                  [--no-validate] [--runs N] [--jobs N]
    grade package course [--course DIR] [-o DIR] [--name NAME] [--course-version V]
                  [--no-validate]

PLATFORM is ``gradescope``, ``prairielearn``, ``exercism`` or ``all`` (the three); there
is no default: you name the platform you upload to. ``-o``: the zip to write (default
``autograder.zip``, ``prairielearn.zip``, ``exercism.zip``); with ``all``, the folder to
write those three into (default: the current folder). What each zip holds is in
:mod:`syncgrade.platforms.bundle`; none ever holds a solution, mutants, corpus or another
exercise, and each is reproducible (fixed timestamps, modes and order: the same wheel,
course and options give byte-identical zips).

First the exercise is validated, as ``grade validate EXERCISE`` does (``--runs``,
``--jobs``: the same options): the checks that need no grading first (a ``grade new``
scaffold still holding its TODO placeholders is refused there, naming the file and line),
then its solution, stub, mutants and corpus are graded. An invalid exercise is not
packaged: one line on stderr names the first problem, exit 1. ``--no-validate`` skips
this (for speed, when ``grade validate`` just passed).

Gradescope's zip: ``setup.sh`` (Python 3.11+, a venv, the wheel with its dependencies,
once, when Gradescope builds the image), ``run_autograder`` (``syncgrade-gradescope``: a
results file even if setup had failed), ``syncgrade.json`` (``{"exercise", "timeout",
"overhead", "memory_gib", "html"[, "course": "course"]}``: the results file is written
within timeout + overhead seconds, default 60 + 20: set the assignment's autograder
timeout above that, with a margin), ``wheels/syncgrade-<version>-py3-none-any.whl`` (with
only EXERCISE of the built-in course) and ``course/`` (of a ``--course`` folder: its
``course.toml`` and EXERCISE's ``exercise.py``, ``README.md`` and ``stub.py``). Both
scripts honour ``SYNCGRADE_AUTOGRADER_ROOT`` (default ``/autograder``) and
``SYNCGRADE_VENV`` (default ``$ROOT/venv``); ``setup.sh`` also ``SYNCGRADE_PYTHON``,
``SYNCGRADE_PIP`` and ``SYNCGRADE_PIP_ARGS``. When Gradescope runs it as root without
``CAP_SYS_ADMIN`` (Docker's default), ``syncgrade-gradescope`` keeps the learner's code out
of ``source/`` and the course by permissions (docs/security.md, "Modes").

``grade package course``: a wheel of the course folder for learners (``pip install`` it,
then ``grade --course NAME``): every exercise's statement, stub and declaration, never a
solution, mutants or corpus, with an entry point in the group ``syncgrade.courses``.
``--name`` (default: the folder's name), ``--course-version`` (default 0.1.0); ``-o`` the folder
to write it into (default: the current folder). Its validation is the checks that need no
grading, for every exercise (grading a whole course is ``grade validate --all``'s job).

The syncgrade wheel is ``--wheel FILE``, or built from this syncgrade's source tree (``pip
wheel --no-deps`` on a copy of it, so the checkout is left as it was). Exit 0; 1 when the
exercise is not valid; a usage error (unknown exercise, no source tree and no
``--wheel``, a failed build) is exit 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade.cli.common import (
    EXIT_NOT_FULL,
    UsageError,
    add_course,
    add_memory,
    add_overhead,
    add_timeout,
    known_exercise,
    open_course,
    parse_anywhere,
)
from syncgrade.platforms.bundle import (
    RUN_AUTOGRADER as RUN_AUTOGRADER,  # re-exported: the tests run them
)
from syncgrade.platforms.bundle import (
    SETUP_SH as SETUP_SH,
)
from syncgrade.platforms.bundle import (
    SHIPPED,
    BundleError,
    Entry,
    ExerciseSource,
    check_name,
    check_version,
    course_wheel,
    exercise_only_wheel,
    exercism_entries,
    gradescope_entries,
    leaks,
    prairielearn_entries,
    write_zip,
)

if TYPE_CHECKING:
    from syncgrade.authoring.validate import Rubrics
    from syncgrade.courses import Course

PLATFORMS = ("gradescope", "prairielearn", "exercism")
TARGETS = (*PLATFORMS, "all", "course")
DEFAULT_OUTPUT = {"gradescope": "autograder.zip", "prairielearn": "prairielearn.zip",
                  "exercism": "exercism.zip"}


class NotReady(Exception):
    """The exercise (or course) is not valid: one line naming the first problem."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grade package",
        description="Validate EXERCISE, then write the bundle a platform needs to grade it "
                    "with syncgrade (gradescope: the autograder zip; prairielearn: the "
                    "grader image and the question folder; exercism: the test runner and "
                    "the exercise folder; all: the three). `grade package course` writes "
                    "a wheel of the course for learners. No bundle holds a solution, "
                    "mutants or corpus.")
    parser.add_argument("platform", choices=TARGETS, metavar="PLATFORM",
                        help="gradescope, prairielearn, exercism, all (the three), or "
                             "course (the learner's course wheel; no EXERCISE)")
    parser.add_argument("exercise", nargs="?", metavar="EXERCISE",
                        help="exercise id, e.g. exercise-1 (not with course)")
    parser.add_argument("-o", "--output", type=Path, metavar="PATH",
                        help="the zip to write (default: autograder.zip, prairielearn.zip "
                             "or exercism.zip); for all and course, the folder to write "
                             "into (default: the current folder)")
    parser.add_argument("--wheel", type=Path, metavar="FILE",
                        help="the syncgrade wheel to ship (default: build one from this "
                             "syncgrade's source tree)")
    parser.add_argument("--html", action="store_true",
                        help="HTML outputs with pictures of each failing interval "
                             "(Gradescope), images (PrairieLearn)")
    parser.add_argument("--no-validate", action="store_true",
                        help="package without validating first (for speed, when `grade "
                             "validate` just passed)")
    parser.add_argument("--runs", type=_positive_int, default=3, metavar="N",
                        help="validation grades each file N times (default: 3, as "
                             "grade validate)")
    parser.add_argument("--jobs", type=_positive_int, default=2, metavar="N",
                        help="validation grades N files at once (default: 2)")
    parser.add_argument("--name", help="course: the installed course's name (default: "
                                       "the course folder's name)")
    parser.add_argument("--course-version", default="0.1.0", metavar="VERSION",
                        help="course: the wheel's version (default: 0.1.0)")
    add_course(parser)
    add_timeout(parser, what="wall-clock limit for the learner's code")
    add_overhead(parser)
    add_memory(parser)
    return parser


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of at least 1: {text!r}")
    return int(text)


def cmd_package(argv: Sequence[str]) -> int:
    """``grade package PLATFORM EXERCISE`` or ``grade package course`` (see the module
    docstring). Returns 0, or 1 with one line on stderr when the exercise is not valid;
    usage errors raise :class:`UsageError`."""
    args = parse_anywhere(_parser(), argv)
    course = open_course(args.course)
    try:
        if args.platform == "course":
            if args.exercise is not None:
                raise UsageError("`grade package course` packages the whole course: "
                                 "give no EXERCISE")
            return _package_course(args, course)
        if args.exercise is None:
            raise UsageError(f"name the exercise to package: grade package {args.platform} "
                             "EXERCISE")
        known_exercise(args.exercise, course)
        if not args.no_validate:
            print(ensure_valid(course, args.exercise, args.runs, args.jobs))
        written = _package_platforms(args, course)
    except NotReady as exc:
        print(f"grade package: {exc}", file=sys.stderr)
        return EXIT_NOT_FULL
    except BundleError as exc:
        raise UsageError(str(exc)) from None
    for target, names in written:
        print(f"wrote {target}: {', '.join(names)}")
    return 0


def _package_platforms(args: argparse.Namespace,
                       course: Course) -> list[tuple[Path, list[str]]]:
    """Write the bundles ``args.platform`` asks for; returns (zip, top-level names)."""
    platforms = PLATFORMS if args.platform == "all" else (args.platform,)
    if args.platform == "all":
        folder = args.output or Path(".")
        targets = {p: folder / DEFAULT_OUTPUT[p] for p in platforms}
    else:
        targets = {args.platform: args.output or Path(DEFAULT_OUTPUT[args.platform])}
    config: dict[str, object] = {"exercise": args.exercise, "timeout": args.timeout,
                                 "overhead": args.overhead, "memory_gib": args.memory,
                                 "html": args.html}
    files = course.folder(args.exercise)
    source = ExerciseSource(args.exercise, course.get(args.exercise).title, files.readme,
                            files.stub, None if course.builtin else Path(course.root))
    written = []
    with tempfile.TemporaryDirectory(prefix="syncgrade-package-") as tmp:
        wheel = args.wheel if args.wheel is not None else build_wheel(Path(tmp))
        if not wheel.is_file() or not wheel.name.endswith(".whl"):
            raise UsageError(f"--wheel {wheel}: not a wheel file")
        data = exercise_only_wheel(wheel, args.exercise)
        for platform, target in targets.items():
            entries = _entries(platform, source, config, wheel.name, data)
            written.append((target, _write(target, entries)))
    return written


def _entries(platform: str, source: ExerciseSource, config: dict[str, object],
             wheel_name: str, wheel: bytes) -> list[Entry]:
    if platform == "gradescope":
        gradescope = dict(config)
        if source.course_dir is not None:
            gradescope["course"] = "course"
        return gradescope_entries(gradescope, wheel_name, wheel, source.course_dir)
    if platform == "prairielearn":
        return prairielearn_entries(source, config, wheel_name, wheel)
    return exercism_entries(source, wheel_name, wheel)


def _write(target: Path, entries: list[Entry]) -> list[str]:
    """Write one bundle; returns its top-level names (folders once, with a ``/``)."""
    names = [e.name for e in entries]
    if leaks(names):  # a bug of ours, never the author's: refuse rather than ship
        raise UsageError(f"refusing to write {target}: it would hold {leaks(names)[0]}")
    try:
        write_zip(target, entries)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    top = [n if n.startswith("wheels/") or "/" not in n else n.split("/", 1)[0] + "/"
           for n in names]
    return list(dict.fromkeys(top))


def ensure_valid(course: Course, exercise: str, runs: int, jobs: int) -> str:
    """Validate ``exercise`` as ``grade validate`` does: the checks that need no grading
    first (so a scaffold is refused at once, naming the file and line of its first
    TODO), then the graded ones. Returns the summary line; raises :class:`NotReady`
    with the first problem."""
    from syncgrade.authoring.validate import load_rubrics, validate

    rubrics = load_rubrics(course)
    _ungraded_checks(course, [exercise], rubrics)
    outcome = validate([exercise], course, runs=runs, jobs=jobs, rubrics=rubrics)
    problems = outcome.problems
    if problems:
        first = problems[0]
        raise NotReady(f"{exercise} is not valid, so it was not packaged: {first.item}: "
                       f"expected {first.expected}; got {first.got}"
                       f"{_more(len(problems), exercise, course)}")
    return (f"validated {exercise}: VALID, {len(outcome.rows)} items, {outcome.grades} "
            f"grades in {outcome.seconds:.0f} s")


def _where(course: Course) -> str:
    return "" if course.builtin else f" --course {course.root}"


def _more(count: int, exercise: str, course: Course) -> str:
    others = f" ({count - 1} more problem(s))" if count > 1 else ""
    return f"{others}; `grade validate {exercise}{_where(course)}` lists them all"


def _ungraded_checks(course: Course, exercises: Sequence[str], rubrics: Rubrics) -> None:
    """The checks of ``grade validate`` that need no grading, for each exercise; a TODO
    placeholder left by ``grade new`` is named first, by file and line. Raises
    :class:`NotReady`."""
    from syncgrade.authoring.validate import author_todos, plan_exercise, todo_lines

    for exercise in exercises:
        files = course.folder(exercise)
        declaration = files.declaration
        try:
            text = declaration.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        todos = [f"{_shown(declaration, course.root)}:{n}" for n in todo_lines(text)]
        todos += author_todos([files.readme, files.stub, files.solution, files.mutants,
                               *files.corpus_files("correct"), *files.corpus_files("flawed")],
                              course.root)
        if todos:
            raise NotReady(f"{exercise} still holds the TODO placeholders of `grade new`, "
                           f"first at {todos[0]} ({len(todos)} in all): fill them in, then "
                           f"`grade validate {exercise}{_where(course)}`")
        problems = [r for r in plan_exercise(exercise, course, rubrics,
                                             grade_corpus=False).rows if not r.ok]
        if problems:
            first = problems[0]
            raise NotReady(f"{exercise} is not valid, so it was not packaged: {first.item}: "
                           f"expected {first.expected}; got {first.got}"
                           f"{_more(len(problems), exercise, course)}")


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _package_course(args: argparse.Namespace, course: Course) -> int:
    """``grade package course``: the learner's wheel of the course folder."""
    import syncgrade

    if course.builtin:
        raise UsageError("the built-in course already ships in syncgrade's own wheel: give "
                         "your course folder with --course DIR")
    exercises = list(course.files)
    if not exercises:
        raise UsageError(f"the course {course.root} has no exercise folder")
    if not args.no_validate:
        from syncgrade.authoring.validate import load_rubrics

        _ungraded_checks(course, exercises, load_rubrics(course))
    name = check_name(args.name or Path(course.root).name)
    filename, data = course_wheel(Path(course.root), exercises, name,
                                  check_version(args.course_version),
                                  f"syncgrade>={syncgrade.__version__}")
    target = (args.output or Path(".")) / filename
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    print(f"wrote {target}: the course {name!r} ({len(exercises)} exercises: statements, "
          f"stubs, declarations); `pip install {target}`, then `grade --course {name} list`")
    return 0


def source_tree() -> Path | None:
    """This syncgrade's source tree (the folder with its ``pyproject.toml``), or ``None``
    when it was installed from a wheel."""
    import syncgrade

    root = Path(syncgrade.__file__).resolve().parent.parent.parent
    project = root / "pyproject.toml"
    if project.is_file() and 'name = "syncgrade"' in project.read_text(encoding="utf-8"):
        return root
    return None


def build_wheel(workdir: Path) -> Path:
    """Build syncgrade's wheel from a copy of its source tree into ``workdir``."""
    root = source_tree()
    if root is None:
        raise UsageError("this syncgrade was installed from a wheel, so there is no source "
                         "tree to build one from: pass --wheel FILE")
    copy = workdir / "source"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (root / name).is_file():
            shutil.copy2(root / name, copy / name)
    shutil.copytree(root / "src", copy / "src", ignore=ignore)
    course = root / "exercises"  # the built-in course: pyproject.toml maps it into the wheel

    def shipped_only(folder: str, names: list[str]) -> set[str]:
        """Leave out all but what the wheel ships (never a solution, mutants, corpus or a
        learner's submission.py)."""
        if Path(folder) != course:  # an exercise folder
            return {name for name in names if name not in SHIPPED}
        return {name for name in names
                if name != "course.toml" and not (course / name).is_dir()}

    shutil.copytree(course, copy / "exercises", ignore=shipped_only)
    out = workdir / "wheel"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           str(copy), "-w", str(out)], capture_output=True, text=True,
                          timeout=600)
    wheels = sorted(out.glob("syncgrade-*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["no wheel came out"])[-1]
        raise UsageError(f"building the syncgrade wheel failed: {last}")
    return wheels[0]
