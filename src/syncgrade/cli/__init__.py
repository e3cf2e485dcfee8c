"""The ``grade`` command. Entry points (this package, the service, the platform
containers, batch) are the only code that prints and picks exit codes.

    grade list                          the exercises and their titles
    grade watch [EXERCISE [PATH]]       grade on every save; move on at full marks
    grade progress                      which exercises are done (the last grade of each)
    grade daemon start|stop|status      the warm grader daemon (`grade` uses it when it runs)
    grade start EXERCISE [--force]      copy the statement and stub into ./exercises/EXERCISE/
    grade [EXERCISE [PATH]] [--format F] grade PATH (default exercises/EXERCISE/submission.py;
                                        in exercises/EXERCISE/, bare `grade` grades its own);
                                        F: text (default), json (or --json), html, gradescope,
                                        prairielearn, exercism; -o FILE; --open: the HTML
                                        report in the browser; --reveal: hidden checks too
    grade batch PATHS... --exercise ID  grade many files; one JSON line (or CSV row) each
    grade validate [EXERCISE... | --all] check a course's exercises before release
                                        (--changed: only those whose files changed)
    grade new EXERCISE --title TITLE    scaffold a new exercise folder in a course
    grade list --json                   the catalogue: exercises, checks, points (platforms)
    grade schema [--write DIR]          the GradeReport JSON Schema (platforms)
    grade package PLATFORM EXERCISE     validate, then the platform's bundle: gradescope
                                        (autograder.zip), prairielearn, exercism or all
    grade package course --course DIR   a wheel of the course for learners (no solutions)
    grade stub EXERCISE [--check]       write stub.py from solution.py's solution markers
    grade serve [--port 8000] ...       the HTTP service (needs the `serve` extra)

Options go anywhere, before the subcommand too (``grade --course DIR list``). Every
command takes ``--course DIR`` (a course folder, or an installed course's name;
default: ``$SYNCGRADE_COURSE``, else the built-in course; see :mod:`syncgrade.courses`).

Exit codes: 0 full marks (for `batch`: every file got a report); 1 graded, not full marks
(a crashing submission included); 2 usage error (unknown exercise, missing file) or a
rubric error (the exercise's author must fix it: a declaration that does not load, a
declared workload that fails on its own code; one ``grade: rubric error in ...`` message
naming the author's file and line, never a traceback, with ``--json`` too); 3 the grader
itself failed.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

from syncgrade.cli.common import (
    BATCH_FORMATS,
    EXIT_FULL_MARKS,
    EXIT_INTERNAL,
    EXIT_NOT_FULL,
    EXIT_USAGE,
    OUTPUT_FORMATS,
    UsageError,
)
from syncgrade.errors import RubricError

__all__ = ["BATCH_FORMATS", "COMMANDS", "EXIT_FULL_MARKS", "EXIT_INTERNAL", "EXIT_NOT_FULL",
           "EXIT_USAGE", "OUTPUT_FORMATS", "UsageError", "main"]


def _lazy(module: str, name: str) -> Callable[[Sequence[str]], int]:
    """The subcommand ``module.name``, imported when it runs: ``grade EXERCISE`` through
    the grader daemon is mostly this process's start-up, which should not import the
    service's, the packager's or the author's tools (about a third of it, issue 27)."""

    def command(argv: Sequence[str]) -> int:
        function: Callable[[Sequence[str]], int] = getattr(importlib.import_module(module),
                                                           name)
        return function(argv)

    command.__name__ = command.__qualname__ = name
    return command


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "list": _lazy("syncgrade.cli.grade", "cmd_list"),
    "start": _lazy("syncgrade.cli.grade", "cmd_start"),
    "batch": _lazy("syncgrade.cli.batch", "cmd_batch"),
    "validate": _lazy("syncgrade.cli.author", "cmd_validate"),
    "new": _lazy("syncgrade.cli.author", "cmd_new"),
    "schema": _lazy("syncgrade.cli.schema", "cmd_schema"),
    "serve": _lazy("syncgrade.cli.serve", "cmd_serve"),
    "package": _lazy("syncgrade.cli.package", "cmd_package"),
    "watch": _lazy("syncgrade.cli.watch", "cmd_watch"),
    "progress": _lazy("syncgrade.cli.watch", "cmd_progress"),
    "daemon": _lazy("syncgrade.cli.daemon", "cmd_daemon"),
    "stub": _lazy("syncgrade.cli.stub", "cmd_stub"),
}

FLAGS = frozenset({"-h", "--help", "--version", "--all", "--changed", "--check", "--force",
                   "--html",
                   "--json", "--no-auth", "--no-corpus-grades", "--no-daemon", "--no-validate",
                   "--open", "--passing", "--resume", "--reveal"})
"""The options of any subcommand that take no value: every other option before the
subcommand takes the next word as its value (``--course DIR``), unless written
``--option=value``."""


def split_command(argv: Sequence[str]) -> tuple[Callable[[Sequence[str]], int] | None,
                                                 list[str]]:
    """The subcommand and its arguments, with options anywhere, before it too (``grade
    --course DIR list`` is ``grade list --course DIR``): the first word that is neither
    an option nor an option's value names it. None (grade an exercise, with ``argv``
    as given) when that word is not a subcommand's name."""
    words = list(argv)
    takes_value = False
    for index, word in enumerate(words):
        if takes_value:
            takes_value = False
        elif word == "--":
            break
        elif word.startswith("-"):
            takes_value = "=" not in word and word not in FLAGS
        else:
            command = COMMANDS.get(word)
            return (command, words[:index] + words[index + 1:]) if command else (None, words)
    return None, words


def main(argv: Sequence[str] | None = None) -> int:
    command, args = split_command(sys.argv[1:] if argv is None else argv)
    try:
        if command is not None:
            return command(args)
        from syncgrade.cli.grade import cmd_grade

        return cmd_grade(args)
    except (UsageError, RubricError) as exc:
        # A RubricError raised while grading (a declared workload failing on its own
        # code) is the author's, as one at load time is: said once, exit 2.
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("grade: interrupted", file=sys.stderr)
        return 130
