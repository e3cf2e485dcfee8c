"""The container entry points' shared body: find the submission, read the configuration,
grade, and always write a valid results file.

Run as ``python -m syncgrade.platforms.entry gradescope`` (console script
``syncgrade-gradescope``; root ``/autograder``), ``python -m syncgrade.platforms.entry
prairielearn`` (``syncgrade-prairielearn``; root ``/grade``) and ``python -m
syncgrade.platforms.entry exercism SLUG INPUT_DIR OUTPUT_DIR`` (``syncgrade-exercism``,
Exercism's test-runner interface: root ``INPUT_DIR``, results in
``OUTPUT_DIR/results.json``, the exercise is ``SLUG`` unless configured). This module is
the containers' entry point (it prints and picks the exit code); the adapters
(:mod:`.gradescope`, :mod:`.prairielearn`, :mod:`.exercism`) only render and describe their
layout, and never import it. All take::

    --root DIR        the platform's directory (tests point it at a simulated layout)
    --exercise ID     which exercise this assignment grades
    --course DIR      the course it belongs to (a folder, or an installed course's name)
    --timeout S       wall-clock limit for the learner's code (default 60)
    --overhead S      the grader's own seconds besides it (default 20): the whole run,
                      from this process's start, ends within timeout + overhead
    --memory GIB      address-space limit for it (default 4)
    --reveal          no redaction of hidden checks (staff runs only)
    --html            HTML outputs with pictures (Gradescope), images (PrairieLearn)
    --output DIR      write the results file in DIR instead of the platform's place

Configuration, later sources winning: a JSON file (Gradescope ``source/syncgrade.json``,
PrairieLearn ``tests/syncgrade.json``), then PrairieLearn's ``data/data.json``
``params.syncgrade`` object, then the ``SYNCGRADE_EXERCISE`` and ``SYNCGRADE_COURSE``
environment variables, then the arguments. The JSON objects take the keys ``exercise``,
``course``, ``timeout``, ``overhead``, ``memory_gib``, ``submission`` (the file name to
grade, default ``submission.py``), ``reveal`` and ``html``; an unknown key is an error, so
a typo cannot silently fall back to a default. Exercism: ``INPUT_DIR/.meta/syncgrade.json``; the
exercise defaults to ``SLUG``, the file to the first ``.py`` of ``files.solution`` in
``.meta/config.json``, the timeout to 8 s and the overhead to 9 s (Exercism stops a
runner after 20 s).

Time: the results file is written within ``timeout + overhead`` seconds of this process's
start (its own start-up, the grade, the file), so a platform's limit above that sum, with
a margin for the container, always gets a results file (docs/platforms.md, "Time limits
on each platform"). The order keeps a loaded machine's CPU seconds off that path: the
configuration, the locking and the protection check first (nothing of the course is
loaded for them: its folders come from ``course.toml``), then the grading child starts
importing jax while this process loads only the graded exercise's declaration and makes
its hidden inputs; a start that left too little for the learner's whole timeout is a
grader fault at once (:func:`check_time_left`).

``course``: the course folder (or an installed course's name; default: the built-in
course). A relative folder in a JSON file is relative to that file's folder (Gradescope:
``"course": "my-course"`` is ``source/my-course``), in ``data.json`` to the root, and
elsewhere to the working directory. Nothing of the course folder is visible to the
learner's code.

The submission: the ``.py`` file named ``submission`` (the shallowest one, if nested);
failing that, the only ``.py`` file there is. No ``.py`` file, or several and none with the
expected name, is the learner's to fix: the result says so (``cause`` ``unreadable``, so
PrairieLearn does not count the attempt). Hidden files, ``__MACOSX`` and ``__pycache__`` are
ignored.

Whatever happens (a bad configuration, a grader fault, a bug here) a valid results file is
written, replaced atomically after the learner's code has finished, and the process exits
0, the contract Gradescope and Exercism state: a crashed runner shows learners a generic
failure instead of our explanation. Exit 1 only if the results file itself cannot be
written. Details for staff go to stdout, *after* the results file is written: on
Gradescope the full, unredacted text report (Gradescope shows stdout to instructors only);
elsewhere one summary line. A closed stdout (``syncgrade-gradescope | head -2``, a
collector that went away) loses only that log: the file is already there, and the exit
code is the file's.

The learner names their own file: the name shown to them (and to the adapters) is
cleaned of control characters and cut to a line (:func:`~.common.clean_name`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform as _platform
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from syncgrade.errors import RubricError
from syncgrade.limits import (
    DEFAULT_MEMORY_GIB,
    DEFAULT_TIMEOUT_S,
    PLATFORM_OVERHEAD_S,
    Deadline,
    check_memory_gib,
    check_overhead,
    check_timeout,
)
from syncgrade.models import (
    SCHEMA_VERSION,
    CheckResult,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
)
from syncgrade.platforms.common import GRADER_FAULT_MESSAGE, clean_name
from syncgrade.platforms.common import Layout as Layout  # re-exported

if TYPE_CHECKING:
    from syncgrade.pool import WarmPool

DEFAULT_SUBMISSION = "submission.py"
EXERCISE_ENV = "SYNCGRADE_EXERCISE"
COURSE_ENV = "SYNCGRADE_COURSE"  # syncgrade.courses.COURSE_ENV
UNPROTECTED_ENV = "SYNCGRADE_ALLOW_UNPROTECTED"
"""``1`` (or ``--allow-unprotected``): grade even where the hidden-path protection cannot
be applied (the operator's choice; never a configuration file's, which may sit beside
the learner's files). Default: refuse (:func:`refuse_unprotected`)."""
CONFIG_KEYS = frozenset({"exercise", "course", "timeout", "overhead", "memory_gib",
                         "submission", "reveal", "html"})
EXERCISM_TIMEOUT_S = 8.0
EXERCISM_OVERHEAD_S = 9.0
"""Exercism stops a test runner after 20 s: 8 s for the learner's code and 9 s for the
grader end within 17 s of the start, 3 s before that."""
MISCONFIGURED = ("The autograder is not set up correctly, so your submission was not "
                 "graded; this is not your fault. Please tell course staff.")
_IGNORED_PARTS = ("__MACOSX", "__pycache__")


class OutOfTime(Exception):
    """Too little is left before the grade's deadline to start a grading child; one
    line for the staff log (a grader fault, never the learner's)."""


def check_time_left(config: Config, begun: float) -> None:
    """Raise :class:`OutOfTime` when what is left of ``timeout + overhead`` since
    ``begun`` (``time.monotonic()``) no longer fits the learner's whole ``timeout`` and
    the stop reserve: loading the exercise and its hidden inputs (seconds on a loaded
    machine, not bounded by the grade's deadline) and the learner's run would not fit,
    so say it now, before the course is loaded and a child started for nothing (on a
    loaded machine those took seconds past the platform's limit). The grade, once the
    exercise is loaded, starts its child with anything left
    (:func:`syncgrade.grading.pipeline.run_group`)."""
    why = Deadline.after(begun, config.timeout, config.overhead).too_short(
        time.monotonic(), config.timeout)
    if why:
        raise OutOfTime(f"no grading child was started once the grader had started: {why}; "
                        "not charged")


class ConfigError(Exception):
    """The autograder's own setup is wrong (staff's to fix); one line."""


@dataclass(frozen=True)
class Config:
    exercise: str
    timeout: float = DEFAULT_TIMEOUT_S
    overhead: float = PLATFORM_OVERHEAD_S
    memory_gib: float = DEFAULT_MEMORY_GIB
    submission: str = DEFAULT_SUBMISSION
    reveal: bool = False
    course: str | None = None
    html: bool = False


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"bad arguments: {message}")


def _parser(layout: Layout) -> argparse.ArgumentParser:
    # No abbreviations: the fallback results file is placed by a scan for the exact
    # option names before parsing, so `--out` must not silently mean `--output`.
    parser = _Parser(prog=f"python -m syncgrade.platforms.{layout.platform}",
                     allow_abbrev=False,
                     description=f"Grade one {layout.platform} submission into its results "
                                 "file (always writes one).")
    parser.add_argument("--root", type=Path, default=Path(layout.default_root),
                        help=f"the platform's directory (default: {layout.default_root})")
    parser.add_argument("--exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("--course", metavar="DIR",
                        help="the course folder, or an installed course's name (default: "
                             "the built-in course)")
    parser.add_argument("--timeout", type=float, help="seconds for the learner's code")
    parser.add_argument("--overhead", type=float, help="the grader's own seconds besides "
                        "the timeout (the run ends within timeout + overhead)")
    parser.add_argument("--memory", type=float, dest="memory_gib", metavar="GIB",
                        help="address-space limit for the learner's code in GiB")
    parser.add_argument("--reveal", action="store_true", default=None,
                        help="show hidden checks in full (staff runs only)")
    parser.add_argument("--html", action="store_true", default=None,
                        help="HTML outputs with pictures (Gradescope), test images "
                             "(PrairieLearn); Exercism stays text")
    parser.add_argument("--output", type=Path, metavar="DIR",
                        help="write the results file in DIR (default: the platform's place)")
    parser.add_argument("--allow-unprotected", action="store_true",
                        help="grade even where learner code could read the course's hidden "
                             f"files (also {UNPROTECTED_ENV}=1; default: refuse)")
    return parser


def _option_from(argv: Sequence[str], option: str) -> str | None:
    """An option's value, found before full parsing: a bad argument still needs a results
    file, written where the arguments say."""
    for i, arg in enumerate(argv):
        if arg == option and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(option + "="):
            return arg.split("=", 1)[1]
    return None


def results_path_of(layout: Layout, root: Path, output: Path | str | None) -> Path:
    """Where the results file goes: ``output/<file name>`` when ``--output`` is given,
    else the platform's place under ``root``."""
    if output is not None:
        return Path(output) / Path(layout.results_file).name
    return root / layout.results_file


def run_entry(layout: Layout, argv: Sequence[str],
              environ: Mapping[str, str] | None = None, *,
              defaults: Mapping[str, Any] | None = None,
              started_at: float | None = None) -> int:
    """Grade and write the results file, then print the staff log; see the module
    docstring. ``defaults``: configuration below every other source (Exercism's slug).
    ``started_at``: the ``time.monotonic()`` the time limits count from (the process's
    start, :func:`process_started`, when this is the program; default: now).
    Returns the exit code: 0, or 1 when the results file could not be written."""
    begun = time.monotonic() if started_at is None else started_at
    started = time.perf_counter()
    log: list[str] = []
    alerts: list[str] = []  # the staff's warnings, on stderr
    root = Path(_option_from(argv, "--root") or layout.default_root)
    results_path = results_path_of(layout, root, _option_from(argv, "--output"))
    try:
        args = _parser(layout).parse_args(list(argv))
        root = args.root
        results_path = results_path_of(layout, root, args.output)
        env = os.environ if environ is None else environ
        config = read_config(layout, root, vars(args), env, defaults)
        allowed = bool(args.allow_unprotected) or env.get(UNPROTECTED_ENV, "") == "1"
        lock_answers(layout, root, config, alerts)
        if not allowed:
            refuse_unprotected(hidden_folders(layout, root, config))
        check_time_left(config, begun)
        # Only now, protected, the child starts importing jax, while this process opens
        # the exercise: on a loaded machine the two overlap instead of adding up.
        pool = _prestart(config)
        try:
            config = _with(config, course=exercise_course(config))
            results = _grade(layout, root, config, log, alerts, begun, allowed=allowed,
                             pool=pool)
        finally:
            pool.close()  # unused (no file to grade, a bad exercise): stopped here
    except OutOfTime as exc:  # the grader's own start-up ate the budget: not charged
        log.append(f"syncgrade: internal error: OutOfTime: {exc}")
        results = layout.fallback(GRADER_FAULT_MESSAGE, time.perf_counter() - started)
    except (ConfigError, RubricError) as exc:  # a RubricError: a declared workload's bug
        log.append(f"syncgrade: the autograder is misconfigured: {exc}")
        results = layout.fallback(MISCONFIGURED, time.perf_counter() - started)
    except Exception:  # a bug of ours: the learner still gets a results file
        log.append("syncgrade: the grader failed:\n" + traceback.format_exc())
        results = layout.fallback(GRADER_FAULT_MESSAGE, time.perf_counter() - started)
    code = 0
    try:
        write_results(results_path, results)
    except OSError as exc:
        log.append(f"syncgrade: cannot write {results_path}: {exc}")
        code = 1
    emit(log)
    emit(alerts, sys.stderr)
    return code


def lock_answers(layout: Layout, root: Path, config: Config, alerts: list[str]) -> list[Path]:
    """Root without namespaces (Docker's default capabilities, so Gradescope's): no jail can
    mask the folders that hold answers, so make each one mode 0700, owned by root, for the
    child's unprivileged uid to be kept out by permissions (docs/security.md, "Modes"):
    the course folder, the installed package's ``course/`` and ``rubric/``, and the
    platform's own folder of configuration (Gradescope's ``source/``: the bundle, its
    wheel). The grader, root, still reads them. Nothing changes in any other mode (the
    jail masks them; an unprivileged grader cannot help it). Returns the folders locked;
    a folder that cannot be changed is a line in ``alerts``."""
    if os.name != "posix" or os.geteuid() != 0:
        return []
    from syncgrade import sandbox

    if sandbox.namespaces_available():
        return []
    locked = []
    for folder in hidden_folders(layout, root, config):
        if not folder.is_dir():
            continue
        try:
            os.chown(folder, 0, 0)
            os.chmod(folder, 0o700)
            locked.append(folder)
        except OSError as exc:
            alerts.append(f"syncgrade: WARNING: cannot lock {folder} away from learner "
                          f"code: {exc}")
    return locked


def hidden_folders(layout: Layout, root: Path, config: Config) -> list[Path]:
    """What learner code must not read, real paths, once each: the grading child's hidden
    paths (the rubric library, the course and its solutions) and the platform's own
    folder of configuration (Gradescope's ``source/``), unless that is the root itself."""
    from syncgrade.errors import CourseError
    from syncgrade.pool import child_command, course_hidden

    staff = [(root / name).parent for name in layout.config_files]
    try:  # the course's folders from its course.toml: no declaration is loaded for this
        course = course_hidden(config.course)
    except CourseError as exc:
        raise ConfigError(str(exc)) from None
    folders = [*child_command(course).hidden_paths,
               *(Path(os.path.realpath(f)) for f in staff if f.resolve() != root.resolve())]
    return list(dict.fromkeys(folders))


REFUSED = ("refused to grade: learner code could read the course's hidden files "
           "(solutions, declarations)")


def refuse_unprotected(hidden: Sequence[Path]) -> None:
    """Fail closed: raise :class:`ConfigError` (the learner reads :data:`MISCONFIGURED`,
    the staff log one line) when a child started now could read any of ``hidden`` (no
    namespace jail, and no per-run uid that both starts and is kept out by permissions;
    :func:`syncgrade.sandbox.unprotected_reason`). Checked before any learner code runs;
    the operator may opt in with ``--allow-unprotected`` or :data:`UNPROTECTED_ENV`."""
    from syncgrade import sandbox

    why = sandbox.unprotected_reason(sys.executable, [str(p) for p in hidden])
    if why:
        raise ConfigError(f"{REFUSED}: {why}. Give the container CAP_SYS_ADMIN or install "
                          "Python and the grader where other users can read them "
                          f"(docs/security.md, \"Fail closed\"); {UNPROTECTED_ENV}=1 grades "
                          "anyway")


def hidden_paths_alert(protections: Sequence[Any]) -> list[str]:
    """The staff's warning when the grading child could read the course's hidden files
    (its ``hidden-paths`` protection was not applied), with what the sandbox said."""
    found = {p.name: p for p in protections}
    hidden = found.get("hidden-paths")
    if hidden is None or hidden.applied:
        return []
    privileges = found.get("drop-privileges")
    return [f"syncgrade: WARNING: learner code could read the course's hidden files "
            f"(solutions, declarations): hidden-paths not applied: {hidden.detail}"
            + (f"; drop-privileges: {privileges.detail}" if privileges is not None else "")
            + ". Give the container CAP_SYS_ADMIN, or install Python and the grader where an "
            "unprivileged uid can reach them (docs/security.md)."]


def emit(lines: Sequence[str], stream: TextIO | None = None) -> bool:
    """Print the staff log to ``stream`` (default stdout), surviving a closed pipe or any
    other write error: the log is the only thing lost. After such an error the real stdout
    is pointed at ``/dev/null``, so the interpreter's last flush at exit cannot fail again
    (and turn exit 0 into 120). Returns whether everything was written."""
    out = sys.stdout if stream is None else stream
    try:
        for line in lines:
            out.write(line + "\n")
        out.flush()
        return True
    except (OSError, ValueError):  # EPIPE, a closed or unwritable stream
        _silence(out)
        return False


def _silence(stream: TextIO) -> None:
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # not a real file (a test's capture): nothing will flush it at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def load_config(layout: Layout, root: Path, args: Mapping[str, Any],
                environ: Mapping[str, str],
                defaults: Mapping[str, Any] | None = None) -> Config:
    """Merge the configuration sources (see the module docstring) and check them, the
    exercise included (:func:`read_config`, then :func:`exercise_course`)."""
    config = read_config(layout, root, args, environ, defaults)
    return _with(config, course=exercise_course(config))


def exercise_course(config: Config) -> str:
    """The folder (or installed name) of ``config``'s course, the built-in one when none
    is configured, once its exercise's declaration is known to load and validate; only
    that declaration is loaded (:func:`syncgrade.courses.open_exercise`). Raises
    :class:`ConfigError` for an unknown exercise, a course that cannot be opened or a
    broken rubric."""
    from syncgrade.courses import BUILTIN_ROOT, CourseError, open_exercise
    from syncgrade.rubric import RubricError, UnknownExercise

    # The built-in course unless one is configured (the given environment included).
    course = config.course or str(BUILTIN_ROOT)
    try:
        open_exercise(course, config.exercise).get(config.exercise)
    except (UnknownExercise, CourseError, RubricError) as exc:
        # A broken rubric is the staff's setup to fix (docs/platforms.md): the learner
        # reads MISCONFIGURED, the staff log the author's file, line and traceback.
        raise ConfigError(str(exc)) from None
    return course


def read_config(layout: Layout, root: Path, args: Mapping[str, Any],
                environ: Mapping[str, str],
                defaults: Mapping[str, Any] | None = None) -> Config:
    """Merge the configuration sources (see the module docstring) and check them, all but
    the exercise: nothing of the course is read here (``course`` stays ``None`` when none
    is configured); :func:`exercise_course` checks the exercise."""
    merged: dict[str, Any] = dict(defaults or {})
    for name in layout.config_files:
        path = root / name
        if path.is_file():
            found = _checked(_read_json(path), str(path))
            refused = sorted(layout.refused_in_config_files & set(found))
            if refused:
                raise ConfigError(f"{path} may not set {', '.join(refused)} (it sits beside "
                                  "the learner's files); give it with an option or the "
                                  "environment")
            merged.update(_relative(found, path.parent))
    if layout.data_json is not None and (root / layout.data_json).is_file():
        data = _read_json(root / layout.data_json)
        params = data.get("params") if isinstance(data, dict) else None
        if isinstance(params, dict) and "syncgrade" in params:
            merged.update(_relative(
                _checked(params["syncgrade"], f"{layout.data_json} params.syncgrade"), root))
    if environ.get(EXERCISE_ENV):
        merged["exercise"] = environ[EXERCISE_ENV]
    if environ.get(COURSE_ENV):
        merged["course"] = environ[COURSE_ENV]
    merged.update({k: v for k, v in args.items() if k in CONFIG_KEYS and v is not None})
    exercise = merged.get("exercise")
    if not isinstance(exercise, str) or not exercise:
        where = " or ".join([*layout.config_files, EXERCISE_ENV, "--exercise"])
        raise ConfigError(f"no exercise configured: set it in {where}")
    course = merged.get("course")
    if course is not None and (not isinstance(course, str) or not course):
        raise ConfigError(f"course must be a folder or an installed course's name, not "
                          f"{course!r}")
    config = Config(exercise=exercise, course=course)
    for key, check in (("timeout", check_timeout), ("overhead", check_overhead),
                       ("memory_gib", check_memory_gib)):
        if key in merged:
            try:  # the rule every way in shares (syncgrade.limits)
                config = _with(config, **{key: check(merged[key], key)})
            except (TypeError, ValueError) as exc:
                raise ConfigError(str(exc)) from None
    if "submission" in merged:
        name = merged["submission"]
        if not isinstance(name, str) or not name.endswith(".py") or "/" in name:
            raise ConfigError(f"submission must be a .py file name, not {name!r}")
        config = _with(config, submission=name)
    for key in ("reveal", "html"):
        if key in merged:
            if not isinstance(merged[key], bool):
                raise ConfigError(f"{key} must be true or false, not {merged[key]!r}")
            config = _with(config, **{key: merged[key]})
    return config


def _relative(values: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``values`` with a relative ``course`` folder that exists under ``folder`` made
    absolute (anything else, e.g. an installed course's name, is left as it is)."""
    course = values.get("course")
    if (isinstance(course, str) and course and not Path(course).is_absolute()
            and (folder / course).is_dir()):
        return {**values, "course": str((folder / course).resolve())}
    return values


def _with(config: Config, **changes: Any) -> Config:
    return Config(**{**config.__dict__, **changes})


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def _checked(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a JSON object")
    unknown = sorted(set(value) - CONFIG_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                          f"{', '.join(sorted(CONFIG_KEYS))})")
    return value


def find_submission(folder: Path, preferred: str = DEFAULT_SUBMISSION) -> tuple[Path | None,
                                                                                 str]:
    """The file to grade in ``folder`` and ``""``, or ``None`` and a message for the
    learner saying what to change. Raises :class:`ConfigError` if ``folder`` is missing
    (the platform did not provide one: not the learner's doing)."""
    if not folder.is_dir():
        raise ConfigError(f"no submission folder at {folder}")
    candidates = sorted(
        (p for p in folder.rglob("*.py")
         if p.is_file() and not any(part.startswith(".") or part in _IGNORED_PARTS
                                    for part in p.relative_to(folder).parts)),
        key=lambda p: (len(p.relative_to(folder).parts), str(p)))
    named = [p for p in candidates if p.name == preferred]
    if named:
        depth = len(named[0].relative_to(folder).parts)
        shallowest = [p for p in named if len(p.relative_to(folder).parts) == depth]
        if len(shallowest) == 1:
            return shallowest[0], ""
        names = ", ".join(clean_name(str(p.relative_to(folder))) for p in shallowest)
        return None, (f"Your submission has {len(shallowest)} files named {preferred} "
                      f"({names}); submit just one.")
    if len(candidates) == 1:
        return candidates[0], ""
    if not candidates:
        return None, (f"Your submission has no Python file; submit your solution as "
                      f"{preferred}.")
    shown = ", ".join(clean_name(str(p.relative_to(folder))) for p in candidates[:5])
    more = f" and {len(candidates) - 5} more" if len(candidates) > 5 else ""
    return None, (f"Your submission has {len(candidates)} Python files ({shown}{more}) and "
                  f"none is named {preferred}; submit just your solution, as {preferred}.")


def problem_report(exercise_id: str, message: str, *, display_name: str, timeout: float,
                   seconds: float = 0.0, course: str | None = None) -> GradeReport:
    """A report for a submission there is nothing to run of (no file, too many files):
    ``runs`` failed with ``message``, every other check not checked, cause ``unreadable``."""
    import syncgrade
    from syncgrade.courses import open_exercise

    exercise = open_exercise(course, exercise_id).get(exercise_id)
    checks = [
        CheckResult(id=spec.id, title=spec.title,
                    status="failed" if spec.id == "runs" else "skipped", points=0.0,
                    max_points=spec.points,
                    message=message if spec.id == "runs"
                    else "Not checked: there was no file to grade.",
                    hint="" if spec.id != "runs"
                    else "Submit one Python file with your solution and grade it again.",
                    visibility=spec.visibility)
        for spec in exercise.checks
    ]
    empty = StreamExcerpt(text="", truncated=False, total_bytes=0)
    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise=exercise.id, title=exercise.title,
        submission=display_name, status="failed", cause="unreadable", score=0.0,
        max_score=exercise.max_score, summary=message, checks=checks, stdout=empty,
        stderr=empty, grading=GradingInfo(seconds=seconds, timeout_s=timeout),
        provenance=Provenance(syncgrade_version=syncgrade.__version__,
                              rubric_version=f"{exercise.id}@{exercise.version}",
                              python_version=_platform.python_version()))


def _prestart(config: Config) -> WarmPool:
    """One grading child started now under ``config``'s limits, hiding its course
    (:func:`syncgrade.pool.prestart`): it imports jax while this process opens the
    exercise and makes its hidden inputs. Its job comes only with the grade; a grade it
    does not fit (other limits, a course it does not hide) runs cold, as before."""
    from syncgrade.pool import course_hidden, prestart

    return prestart(config.timeout, _memory_bytes(config), hidden=course_hidden(config.course))


def _memory_bytes(config: Config) -> int:
    return int(config.memory_gib * 2**30)


def _grade(layout: Layout, root: Path, config: Config, log: list[str],
           alerts: list[str], begun: float, *, allowed: bool,
           pool: WarmPool | None = None) -> dict[str, Any]:
    """Grade the submission under ``root``; the staff log's lines go to ``log``, its
    warnings to ``alerts``. The grade ends within ``config.timeout + config.overhead`` of
    ``begun`` (``time.monotonic()``). A run whose hidden-path protection was not applied
    after all (the check before it said it would be) raises :class:`ConfigError` unless
    ``allowed``: what it read never reaches the learner's results."""
    from syncgrade.courses import open_exercise
    from syncgrade.grading import SubmissionError, grade_result
    from syncgrade.render import render

    started = time.perf_counter()
    folder = root / layout.submission_dir
    path, problem = find_submission(folder, config.submission)
    source_lines: Sequence[str] | None = None
    if path is None:
        report = problem_report(config.exercise, problem, display_name=config.submission,
                                timeout=config.timeout, course=config.course)
    else:
        # The learner sees their file's own name (cleaned), never the platform's path.
        display = clean_name(str(path.relative_to(folder)))
        try:
            result = grade_result(config.exercise, path, timeout=config.timeout,
                                  memory_bytes=_memory_bytes(config),
                                  display_name=display,
                                  course=open_exercise(config.course, config.exercise),
                                  overhead=config.overhead, started_at=begun, pool=pool)
            # The lines as graded: never the file read again (it may have changed since).
            report, source_lines = result.report, result.source_lines
        except SubmissionError as exc:
            report = problem_report(config.exercise, f"Your file could not be read ({exc}).",
                                    display_name=display, timeout=config.timeout,
                                    seconds=time.perf_counter() - started,
                                    course=config.course)
    log.append(f"syncgrade {layout.platform}: {report.exercise} {report.submission}: "
               f"{report.status} ({report.cause}) {report.score:g}/{report.max_score:g}")
    if report.grading.internal_error:
        log.append(f"syncgrade: {report.grading.internal_error}")
    unprotected = hidden_paths_alert(report.grading.protections)
    if unprotected and not allowed:
        raise ConfigError(f"{REFUSED}: the run said so: {unprotected[0]}")
    alerts.extend(unprotected)
    if layout.log_full_report:
        log.append(render(report, source_lines).rstrip("\n"))
    return layout.render(report, reveal=config.reveal, source_lines=source_lines,
                         html=config.html)


def write_results(path: Path, results: dict[str, Any]) -> None:
    """Write ``results`` as JSON to ``path``, atomically: a temporary file in the same
    folder, then a rename that replaces whatever is at ``path`` (a file or link the
    learner's code may have planted) rather than writing through it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def gradescope_main(argv: Sequence[str] | None = None, *,
                    started_at: float | None = None) -> int:
    """``run_autograder``: grade ``ROOT/submission`` into ``ROOT/results/results.json``."""
    from syncgrade.platforms import gradescope

    return _ended(run_entry(gradescope.layout(), sys.argv[1:] if argv is None else argv,
                            started_at=_program_start(argv, started_at)), argv)


def prairielearn_main(argv: Sequence[str] | None = None, *,
                      started_at: float | None = None) -> int:
    """The external-grader entry: grade ``ROOT/student`` into ``ROOT/results/results.json``."""
    from syncgrade.platforms import prairielearn

    return _ended(run_entry(prairielearn.layout(), sys.argv[1:] if argv is None else argv,
                            started_at=_program_start(argv, started_at)), argv)


EXERCISM_USAGE = ("usage: syncgrade-exercism SLUG INPUT_DIR OUTPUT_DIR [options] "
                  "(Exercism's test-runner interface)")


def exercism_main(argv: Sequence[str] | None = None, *,
                  started_at: float | None = None) -> int:
    """Exercism's test runner: ``SLUG INPUT_DIR OUTPUT_DIR [options]`` grades the solution in
    ``INPUT_DIR`` into ``OUTPUT_DIR/results.json``. The exercise is ``SLUG`` unless
    ``.meta/syncgrade.json``, ``SYNCGRADE_EXERCISE`` or ``--exercise`` says otherwise; the
    file is the first ``.py`` of ``.meta/config.json``'s ``files.solution``. Without the
    three arguments there is nowhere to write: usage on stderr, exit 2."""
    from syncgrade.platforms import exercism

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or any(a.startswith("-") for a in args[:3]):
        print(EXERCISM_USAGE, file=sys.stderr)
        return 2
    slug, input_dir, output_dir, *rest = args
    defaults: dict[str, Any] = {"exercise": slug, "timeout": EXERCISM_TIMEOUT_S,
                                "overhead": EXERCISM_OVERHEAD_S}
    solution = _exercism_solution(Path(input_dir))
    if solution:
        defaults["submission"] = solution
    return _ended(run_entry(exercism.layout(),
                            ["--root", input_dir, "--output", output_dir, *rest],
                            defaults=defaults, started_at=_program_start(argv, started_at)),
                  argv)


def process_started() -> float:
    """The ``time.monotonic()`` of this process's start (Linux: ``/proc/self/stat``; now
    elsewhere): the interpreter's own start and the imports count against the
    platform's limit as much as the grade does."""
    now = time.monotonic()
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - max(0.0, age)


def _ended(code: int, argv: Sequence[str] | None) -> int:
    """``code``; run as the program (``argv`` None), the process ends here, now that the
    results file and the logs are written: the interpreter's own teardown (a reference
    computation still on a daemon thread, every module's cleanup) took seconds of the
    platform's limit on a loaded machine, for nothing the platform reads."""
    if argv is None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    return code


def _program_start(argv: Sequence[str] | None, started_at: float | None) -> float | None:
    """Run as the program (``argv`` None: a console script) the limits count from the
    process's start; called with arguments (tests, other code), from the call."""
    return started_at if started_at is not None else (
        process_started() if argv is None else None)


def _exercism_solution(folder: Path) -> str | None:
    """The first ``.py`` file name of ``files.solution`` in ``.meta/config.json``, if any
    (a track's own layout; anything unreadable there is ignored: the usual search runs)."""
    try:
        meta = json.loads((folder / ".meta" / "config.json").read_text(encoding="utf-8"))
        names = meta["files"]["solution"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(names, list):
        return None
    return next((Path(n).name for n in names if isinstance(n, str) and n.endswith(".py")),
                None)


MAINS = {"gradescope": gradescope_main, "prairielearn": prairielearn_main,
         "exercism": exercism_main}


if __name__ == "__main__":  # python -m syncgrade.platforms.entry PLATFORM [options]
    if len(sys.argv) < 2 or sys.argv[1] not in MAINS:
        print(f"usage: python -m syncgrade.platforms.entry {{{','.join(MAINS)}}} [options]",
              file=sys.stderr)
        sys.exit(2)
    sys.exit(_ended(MAINS[sys.argv[1]](sys.argv[2:], started_at=process_started()), None))
