"""``grade stub EXERCISE``: write ``stub.py`` from ``solution.py``'s solution markers
(:mod:`syncgrade.authoring.markers`), so the stub and the solution have one source.

    grade stub EXERCISE [--course DIR] [--check]

Writes the exercise's ``stub.py`` (exit 0). ``--check`` writes nothing: exit 0 when
``stub.py`` is what the markers make, 1 (one line naming the first differing line)
when not. Markers that do not pair up: one line naming the file and line, exit 1. A
solution without markers, or an unknown exercise, is a usage error (exit 2).
``grade validate`` checks the same agreement (its ``stub markers`` row).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    EXIT_NOT_FULL,
    UsageError,
    add_course,
    open_course,
    parse_anywhere,
)


def cmd_stub(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade stub",
        description="Write EXERCISE's stub.py from its solution.py: every '# BEGIN "
                    "SOLUTION' .. '# END SOLUTION' block left out, every '# BEGIN STUB' "
                    ".. '# END STUB' block of comments uncommented (docs/authoring.md, "
                    "'One source for the stub and the solution').")
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when stub.py is not what the markers "
                             "make")
    add_course(parser)
    args = parse_anywhere(parser, argv)
    from syncgrade.authoring.markers import MarkerError, stub_from_solution
    from syncgrade.authoring.validate import first_difference
    from syncgrade.errors import UnknownExercise

    course = open_course(args.course)
    try:
        files = course.folder(args.exercise)
    except UnknownExercise as exc:
        raise UsageError(str(exc)) from None
    shown = files.solution.relative_to(course.root)
    try:
        stub = stub_from_solution(files.solution.read_text(encoding="utf-8"), str(shown))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {files.solution}: {exc}") from None
    except MarkerError as exc:
        print(f"grade stub: {exc}", file=sys.stderr)
        return EXIT_NOT_FULL
    if stub is None:
        raise UsageError(f"{shown} has no '# BEGIN SOLUTION' markers: its stub.py is "
                         "written by hand")
    target = files.stub
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        difference = first_difference(stub, current)
        if difference:
            print(f"grade stub: {target.relative_to(course.root)} is not what {shown}'s "
                  f"markers make ({difference}): run `grade stub {args.exercise}`",
                  file=sys.stderr)
            return EXIT_NOT_FULL
        print(f"{target.relative_to(course.root)} agrees with {shown}'s markers")
        return EXIT_FULL_MARKS
    target.write_text(stub, encoding="utf-8")
    print(f"wrote {target.relative_to(course.root)} from {shown}'s markers")
    return EXIT_FULL_MARKS
