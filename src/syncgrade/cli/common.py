"""What every ``grade`` subcommand shares: exit codes, the usage error, the limit, course
and reveal options. Imports nothing heavy (``grade --help`` stays fast) and no other CLI
module, so the CLI package has no cycles."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade.accelerator import DEVICE_ENV, DEVICES
from syncgrade.errors import RubricError, UnknownExercise
from syncgrade.limits import (
    BATCH_FORMATS,
    DEFAULT_MEMORY_GIB,
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    OUTPUT_FORMATS,
    PLATFORM_FORMATS,
    PLATFORM_OVERHEAD_S,
    check_memory_gib,
    check_overhead,
    check_timeout,
)

if TYPE_CHECKING:
    from syncgrade.courses import Course

__all__ = ["BATCH_FORMATS", "OUTPUT_FORMATS"]

EXIT_FULL_MARKS, EXIT_NOT_FULL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """A mistake in how the command was called: one line, exit code 2."""


def terminal_width() -> int:
    """The width of this process's terminal as :func:`shutil.get_terminal_size` finds it
    (``$COLUMNS`` first, then stdout's terminal), or 0 where there is none. Not
    :mod:`shutil` itself: its imports (archives, compressors) were a tenth of the
    imports of a ``grade`` through the daemon, whose start-up is what a repeat grade
    waits for besides the grade itself."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 0


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter at the terminal's width (:func:`terminal_width`, else 80,
    less 2, as argparse's own), without the :mod:`shutil` import argparse makes for it
    in every ``add_argument``."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         width if width is not None else (terminal_width() or 80) - 2)


def _limit(check: Callable[[object, str], float], option: str) -> Callable[[str], float]:
    """The argparse type of a limit option: the rule every way in shares
    (:mod:`syncgrade.limits`). A bad value raises :class:`UsageError`, which argparse lets
    through, so it is one line on stderr and exit 2 rather than argparse's usage text."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"{option} must be a number, not {text!r}") from None
        try:
            return check(value, option)
        except ValueError as exc:
            raise UsageError(str(exc)) from None

    return parse


def parse_anywhere(parser: argparse.ArgumentParser,
                   argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed with options anywhere, before, between or after the positionals
    (``grade exercise-4 --json attempt.py``, ``grade batch a.py --exercise e b.py``), as
    in every common CLI. Plain ``parse_args`` takes the positionals in one go, so a
    positional after an option was "unrecognized". Every ``grade`` subcommand parses with
    this; a parser using ``REMAINDER`` or positional groups (which intermixing does not
    support) is a programming error."""
    return parser.parse_intermixed_args(list(argv))


def add_timeout(parser: argparse.ArgumentParser, default: float = DEFAULT_TIMEOUT_S,
                 what: str = "wall-clock limit for your code") -> None:
    parser.add_argument("--timeout", type=_limit(check_timeout, "--timeout"),
                        default=default, metavar="SECONDS",
                        help=f"{what} (default: {default:g}; at most {MAX_TIMEOUT_S:g})")

def add_overhead(parser: argparse.ArgumentParser,
                 default: float = PLATFORM_OVERHEAD_S) -> None:
    parser.add_argument("--overhead", type=_limit(check_overhead, "--overhead"),
                        default=default, metavar="SECONDS",
                        help=f"the grader's own seconds besides --timeout: the results "
                             f"file is written within timeout + overhead (default: "
                             f"{default:g})")

def add_memory(parser: argparse.ArgumentParser) -> None:
    """``--memory`` and, with it, ``--device`` (every command that runs children)."""
    parser.add_argument("--memory", type=_limit(check_memory_gib, "--memory"),
                        default=DEFAULT_MEMORY_GIB, metavar="GIB",
                        help=f"memory limit for your code in GiB (default: "
                             f"{DEFAULT_MEMORY_GIB:g}; jax needs more than 1): address "
                             "space on the CPU, resident memory beyond the runtime's own "
                             "on an accelerator")
    parser.add_argument("--device", choices=DEVICES, action=_DeviceAction, default=None,
                        help="where your code runs: auto (what JAX picks; the default, or "
                             f"${DEVICE_ENV}), cpu, tpu or gpu (docs/accelerators.md)")


class _DeviceAction(argparse.Action):
    """Sets ``$SYNCGRADE_DEVICE`` for this process, so every grading child it starts
    (cold, pooled, a batch's, the service's) runs on that device."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        os.environ[DEVICE_ENV] = str(values)


def add_course(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", metavar="DIR", default=None,
                        help="the course: a course folder, or the name of an installed "
                             "course (default: $SYNCGRADE_COURSE, else the built-in course)")

def course_root(spec: str | None) -> Path:
    """The folder of the course ``--course`` names (no declaration is read yet)."""
    from syncgrade.courses import CourseError
    from syncgrade.courses import course_root as root_of

    try:
        return root_of(spec)
    except CourseError as exc:
        raise UsageError(str(exc)) from None

def prestart_hidden(spec: str | None) -> tuple[Path, ...]:
    """The course folder (and its solutions folder) a pre-started child must not see,
    found without importing the grader where that can be helped
    (:func:`syncgrade.pool.course_hidden`); a usage error for a wrong course."""
    from syncgrade.errors import CourseError  # not via courses: its import is the slow part
    from syncgrade.pool import course_hidden

    try:
        return course_hidden(spec)
    except CourseError as exc:  # a wrong course.toml: said once, before anything starts
        raise UsageError(str(exc)) from None


def open_course(spec: str | None) -> Course:
    """The course ``--course`` names; a usage error when there is none."""
    from syncgrade.courses import CourseError
    from syncgrade.courses import open_course as opened

    try:
        return opened(spec)
    except CourseError as exc:
        raise UsageError(str(exc)) from None

def add_reveal(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reveal", action="store_true",
                        help="instructors: show hidden checks in full (learners see only "
                             "their verdict and a generic hint)")


def add_platform_html(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", action="store_true",
                        help="with a platform format: Gradescope's outputs as HTML with "
                             "each failing timing check's picture, PrairieLearn's pictures "
                             "as images (Exercism shows only text)")


def check_platform_html(html: bool, fmt: str) -> None:
    """``--html`` belongs to the platform formats; with another it is a usage error."""
    if html and fmt not in PLATFORM_FORMATS:
        raise UsageError(f"--html is for the platform formats ({', '.join(PLATFORM_FORMATS)}); "
                         "for a page of its own use --format html")


def known_exercise(exercise_id: str, course: Course) -> None:
    try:
        course.get(exercise_id)
    except UnknownExercise as exc:
        where = "" if course.builtin else f" --course {course.root}"
        raise UsageError(f"{exc}; run `grade list{where}`") from None
    except RubricError as exc:  # the author's mistake, shown to the author: exit 2
        raise UsageError(str(exc)) from None
