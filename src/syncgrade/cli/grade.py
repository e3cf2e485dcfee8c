"""``grade EXERCISE [PATH]``, ``grade list`` and ``grade start``: grading one file, the
catalogue, and copying an exercise's stub."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    EXIT_INTERNAL,
    EXIT_NOT_FULL,
    OUTPUT_FORMATS,
    UsageError,
    add_course,
    add_memory,
    add_reveal,
    add_timeout,
    known_exercise,
    open_course,
    prestart_hidden,
    source_lines,
)
from syncgrade.limits import GIB
from syncgrade.version import __version__


def _grade_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grade",
        description="Grade a syncgrade exercise: what did your timer really measure?",
        epilog="Other commands: `grade list` shows the exercises; `grade start EXERCISE` "
               "copies an exercise's statement and stub into ./exercises/.",
    )
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1 (see `grade list`)")
    parser.add_argument("path", nargs="?", type=Path,
                        help="the file to grade (default: exercises/EXERCISE/submission.py)")
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default=None,
                        help="text: the terminal view (default); json: exactly one "
                             "GradeReport; gradescope, prairielearn, exercism: that "
                             "platform's results.json. Nothing else goes to stdout")
    parser.add_argument("--json", action="store_true",
                        help="the same as --format json")
    add_reveal(parser)
    add_timeout(parser)
    add_memory(parser)
    add_course(parser)
    parser.add_argument("--version", action="version", version=f"syncgrade {__version__}")
    return parser

def cmd_list(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="grade list", description="List the exercises.")
    parser.add_argument("--json", action="store_true",
                        help="print the catalogue as JSON: each exercise's id, title, rubric "
                             "version, max_score and checks (id, title, points, visibility)")
    add_course(parser)
    args = parser.parse_args(argv)
    course = open_course(args.course)
    if args.json:
        from syncgrade.schema import catalogue

        sys.stdout.write(catalogue(course).model_dump_json(indent=2) + "\n")
        return EXIT_FULL_MARKS
    width = max((len(e) for e in course.exercises), default=0)
    for exercise in course.exercises.values():
        print(f"{exercise.id:<{width}}  {exercise.title}")
    for exercise_id, error in course.errors.items():  # the author's to fix: say so
        print(f"grade list: {exercise_id} left out: {error}", file=sys.stderr)
    return EXIT_FULL_MARKS

def cmd_start(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade start",
        description="Copy an exercise's README.md and submission.py into ./exercises/EXERCISE/.")
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    add_course(parser)
    args = parser.parse_args(argv)
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    from syncgrade.starter import StarterError, start

    try:
        written = start(args.exercise, Path.cwd(), force=args.force, course=course)
    except StarterError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {path.relative_to(Path.cwd())}")
    print(f"Read {written[0].relative_to(Path.cwd())}, edit the stub, then run "
          f"`grade {args.exercise}`.")
    return EXIT_FULL_MARKS

def cmd_grade(argv: Sequence[str]) -> int:
    args = _grade_parser().parse_args(argv)
    from syncgrade.pool import prestart

    # The child starts importing jax now, while this process imports the grader (issue 10).
    pool = prestart(args.timeout, int(args.memory * GIB), hidden=prestart_hidden(args.course))
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    from syncgrade.grading import SubmissionError, grade

    path = args.path or Path("exercises") / args.exercise / "submission.py"
    if not path.is_file():
        hint = "" if args.path else f" (run `grade start {args.exercise}` to get the stub)"
        raise UsageError(f"no such file: {path}{hint}")
    if args.json and args.format not in (None, "json"):
        raise UsageError(f"--json means --format json; give only --format {args.format}")
    fmt = "json" if args.json else (args.format or "text")
    try:
        report = grade(args.exercise, path, timeout=args.timeout,
                       memory_bytes=int(args.memory * GIB), pool=pool, course=course)
    except SubmissionError as exc:
        raise UsageError(str(exc)) from None
    from syncgrade.platforms.output import format_report
    from syncgrade.render import use_colour

    sys.stdout.write(format_report(report, fmt, reveal=args.reveal,
                                   source_lines=source_lines(path),
                                   colour=fmt == "text" and use_colour(sys.stdout)))
    if report.grading.internal_error:
        return EXIT_INTERNAL
    return EXIT_FULL_MARKS if report.status == "passed" else EXIT_NOT_FULL
