"""The ``grade`` command. The only module that prints and picks exit codes.

    grade list                          the exercises and their titles
    grade start EXERCISE [--force]      copy the statement and stub into ./exercises/EXERCISE/
    grade EXERCISE [PATH] [--format F]  grade PATH (default exercises/EXERCISE/submission.py);
                                        F: text (default), json (or --json), gradescope,
                                        prairielearn, exercism; --reveal: hidden checks too
    grade batch PATHS... --exercise ID  grade many files; one JSON line (or CSV row) each
    grade validate [EXERCISE... | --all] check a course's exercises before release
    grade new EXERCISE --title TITLE    scaffold a new exercise folder in a course
    grade list --json                   the catalogue: exercises, checks, points (platforms)
    grade schema [--write DIR]          the GradeReport JSON Schema (platforms)
    grade serve [--port 8000] ...       the HTTP service (needs the `serve` extra)

Every command takes ``--course DIR`` (a course folder, or an installed course's name;
default: ``$SYNCGRADE_COURSE``, else the built-in course; see :mod:`syncgrade.courses`).

Exit codes: 0 full marks (for `batch`: every file got a report); 1 graded, not full marks
(a crashing submission included); 2 usage error (unknown exercise, missing file); 3 the
grader itself failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade import __version__, cli_author, cli_schema, cli_serve
from syncgrade.limits import (
    DEFAULT_MEMORY_GIB,
    DEFAULT_TIMEOUT_S,
    check_memory_gib,
    check_timeout,
)

if TYPE_CHECKING:
    from syncgrade.courses import Course

EXIT_FULL_MARKS, EXIT_NOT_FULL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# Kept here, not imported, so `grade --help` stays fast; tests check they match
# syncgrade.platforms.output.
OUTPUT_FORMATS = ("text", "json", "gradescope", "prairielearn", "exercism")
BATCH_FORMATS = ("jsonl", "csv", *OUTPUT_FORMATS)


class UsageError(Exception):
    """A mistake in how the command was called: one line, exit code 2."""


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


def _add_timeout(parser: argparse.ArgumentParser, default: float = DEFAULT_TIMEOUT_S,
                 what: str = "wall-clock limit for your code") -> None:
    parser.add_argument("--timeout", type=_limit(check_timeout, "--timeout"),
                        default=default, metavar="SECONDS",
                        help=f"{what} (default: {default:g}; at most 3600)")


def _add_memory(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--memory", type=_limit(check_memory_gib, "--memory"),
                        default=DEFAULT_MEMORY_GIB, metavar="GIB",
                        help=f"address-space limit for your code in GiB (default: "
                             f"{DEFAULT_MEMORY_GIB:g}; jax needs more than 1)")


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
    _add_reveal(parser)
    _add_timeout(parser)
    _add_memory(parser)
    add_course(parser)
    parser.add_argument("--version", action="version", version=f"syncgrade {__version__}")
    return parser


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


def open_course(spec: str | None) -> Course:
    """The course ``--course`` names; a usage error when there is none."""
    from syncgrade.courses import CourseError
    from syncgrade.courses import open_course as opened

    try:
        return opened(spec)
    except CourseError as exc:
        raise UsageError(str(exc)) from None


def _add_reveal(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reveal", action="store_true",
                        help="instructors: show hidden checks in full (learners see only "
                             "their verdict and a generic hint)")


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


def _known_exercise(exercise_id: str, course: Course) -> None:
    from syncgrade.rubric import RubricError, UnknownExercise

    try:
        course.get(exercise_id)
    except UnknownExercise as exc:
        where = "" if course.builtin else f" --course {course.root}"
        raise UsageError(f"{exc}; run `grade list{where}`") from None
    except RubricError as exc:  # the author's mistake, shown to the author: exit 2
        raise UsageError(str(exc)) from None


def cmd_start(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade start",
        description="Copy an exercise's README.md and submission.py into ./exercises/EXERCISE/.")
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    add_course(parser)
    args = parser.parse_args(argv)
    course = open_course(args.course)
    _known_exercise(args.exercise, course)
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
    pool = prestart(args.timeout, int(args.memory * 2**30), hidden=(course_root(args.course),))
    course = open_course(args.course)
    _known_exercise(args.exercise, course)
    from syncgrade.engine import SubmissionError, grade

    path = args.path or Path("exercises") / args.exercise / "submission.py"
    if not path.is_file():
        hint = "" if args.path else f" (run `grade start {args.exercise}` to get the stub)"
        raise UsageError(f"no such file: {path}{hint}")
    if args.json and args.format not in (None, "json"):
        raise UsageError(f"--json means --format json; give only --format {args.format}")
    fmt = "json" if args.json else (args.format or "text")
    try:
        report = grade(args.exercise, path, timeout=args.timeout,
                       memory_bytes=int(args.memory * 2**30), pool=pool, course=course)
    except SubmissionError as exc:
        raise UsageError(str(exc)) from None
    from syncgrade.platforms.output import format_report
    from syncgrade.render import use_colour

    sys.stdout.write(format_report(report, fmt, reveal=args.reveal,
                                   source_lines=_source_lines(path),
                                   colour=fmt == "text" and use_colour(sys.stdout)))
    if report.grading.internal_error:
        return EXIT_INTERNAL
    return EXIT_FULL_MARKS if report.status == "passed" else EXIT_NOT_FULL


def cmd_batch(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade batch",
        description="Grade many submissions of one exercise, each in its own sandbox. "
                    "Writes one report per file as it finishes: a JSON line (a "
                    "GradeReport, or {\"submission\", \"results\"} holding a platform's "
                    "results.json), a CSV row, or the text view.")
    parser.add_argument("paths", nargs="+", type=Path,
                        help="submission files, or folders of *.py files")
    parser.add_argument("--exercise", required=True, help="exercise id, e.g. exercise-1")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="submissions graded at once (default: 2)")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write reports to FILE (default: stdout)")
    parser.add_argument("--format", choices=BATCH_FORMATS, default="jsonl",
                        help="jsonl (or json): one GradeReport per line (default); csv: one "
                             "row each; text: the terminal view of each; gradescope, "
                             "prairielearn, exercism: one JSON line per file, "
                             "{\"submission\": NAME, \"results\": RESULTS_JSON}")
    _add_reveal(parser)
    _add_timeout(parser, what="wall-clock limit per submission")
    _add_memory(parser)
    add_course(parser)
    args = parser.parse_args(argv)
    course = open_course(args.course)
    _known_exercise(args.exercise, course)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    from syncgrade import batch
    from syncgrade.engine import grade
    from syncgrade.render import use_colour

    paths = batch.expand(args.paths)
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no such file: {missing[0]}"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    if not paths:
        raise UsageError("no submissions found")
    check_ids = [c.id for c in course.get(args.exercise).checks]
    stream = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
    tally = batch.Tally(total=len(paths))
    show_progress = sys.stderr.isatty()
    from syncgrade.pool import WarmPool

    # One warm child per job: each submission still gets a fresh child (issue 10).
    pool = WarmPool(args.jobs, timeout=args.timeout, memory_bytes=int(args.memory * 2**30),
                    defer_refill=False,  # throughput: every finished run is replaced at once
                    hidden=course.hidden_paths)
    try:
        writer = batch.ReportWriter(stream, args.format, check_ids, reveal=args.reveal,
                                    colour=args.format == "text" and not args.out
                                    and use_colour(stream))
        for report in batch.grade_all(
                paths, lambda p: grade(args.exercise, p, timeout=args.timeout,
                                       memory_bytes=int(args.memory * 2**30), pool=pool,
                                       course=course),
                args.jobs):
            # Only the text view and the platforms' timelines quote the learner's lines;
            # without a display_name the report names the file as it was given.
            quotes = args.format not in ("jsonl", "json", "csv")
            writer.write(report, _source_lines(Path(report.submission)) if quotes else None)
            tally.add(report)
            if show_progress:
                sys.stderr.write(batch.progress_line(tally))
                sys.stderr.flush()
    finally:
        pool.close()
        if args.out:
            stream.close()
    if show_progress:
        sys.stderr.write("\n")
    print(tally.summary(), file=sys.stderr)
    return EXIT_INTERNAL if tally.internal_errors else EXIT_FULL_MARKS


def _source_lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "list": cmd_list, "start": cmd_start, "batch": cmd_batch,
    "validate": cli_author.cmd_validate, "new": cli_author.cmd_new,
    "schema": cli_schema.cmd_schema, "serve": cli_serve.cmd_serve,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = COMMANDS.get(argv[0]) if argv else None
    try:
        if command is not None:
            return command(argv[1:])
        return cmd_grade(argv)
    except UsageError as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("grade: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # `python -m syncgrade.cli`: run the importable module's main, so a UsageError that
    # cli_serve raises (it imports syncgrade.cli) is the class main catches.
    from syncgrade import cli

    sys.exit(cli.main())
