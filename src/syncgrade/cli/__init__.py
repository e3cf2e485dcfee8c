"""The ``grade`` command. Entry points (this package, the service, the platform
containers, batch) are the only code that prints and picks exit codes.

    grade list                          the exercises and their titles
    grade start EXERCISE [--force]      copy the statement and stub into ./exercises/EXERCISE/
    grade EXERCISE [PATH] [--format F]  grade PATH (default exercises/EXERCISE/submission.py);
                                        F: text (default), json (or --json), html, gradescope,
                                        prairielearn, exercism; -o FILE; --open: the HTML
                                        report in the browser; --reveal: hidden checks too
    grade batch PATHS... --exercise ID  grade many files; one JSON line (or CSV row) each
    grade validate [EXERCISE... | --all] check a course's exercises before release
    grade new EXERCISE --title TITLE    scaffold a new exercise folder in a course
    grade list --json                   the catalogue: exercises, checks, points (platforms)
    grade schema [--write DIR]          the GradeReport JSON Schema (platforms)
    grade package gradescope EXERCISE   the Gradescope autograder zip (-o autograder.zip)
    grade serve [--port 8000] ...       the HTTP service (needs the `serve` extra)

Every command takes ``--course DIR`` (a course folder, or an installed course's name;
default: ``$SYNCGRADE_COURSE``, else the built-in course; see :mod:`syncgrade.courses`).

Exit codes: 0 full marks (for `batch`: every file got a report); 1 graded, not full marks
(a crashing submission included); 2 usage error (unknown exercise, missing file); 3 the
grader itself failed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from syncgrade.cli.author import cmd_new, cmd_validate
from syncgrade.cli.batch import cmd_batch
from syncgrade.cli.common import (
    BATCH_FORMATS,
    EXIT_FULL_MARKS,
    EXIT_INTERNAL,
    EXIT_NOT_FULL,
    EXIT_USAGE,
    OUTPUT_FORMATS,
    UsageError,
)
from syncgrade.cli.grade import cmd_grade, cmd_list, cmd_start
from syncgrade.cli.package import cmd_package
from syncgrade.cli.schema import cmd_schema
from syncgrade.cli.serve import cmd_serve

__all__ = ["BATCH_FORMATS", "COMMANDS", "EXIT_FULL_MARKS", "EXIT_INTERNAL", "EXIT_NOT_FULL",
           "EXIT_USAGE", "OUTPUT_FORMATS", "UsageError", "main"]

COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "list": cmd_list, "start": cmd_start, "batch": cmd_batch,
    "validate": cmd_validate, "new": cmd_new,
    "schema": cmd_schema, "serve": cmd_serve, "package": cmd_package,
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
