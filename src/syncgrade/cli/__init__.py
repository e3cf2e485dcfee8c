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

Options go anywhere, before the subcommand too (``grade --course DIR list``). Every
command takes ``--course DIR`` (a course folder, or an installed course's name;
default: ``$SYNCGRADE_COURSE``, else the built-in course; see :mod:`syncgrade.courses`).

Exit codes: 0 full marks (for `batch`: every file got a report); 1 graded, not full marks
(a crashing submission included); 2 usage error (unknown exercise, missing file); 3 the
grader itself failed.
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
from syncgrade.cli.grade import cmd_grade, cmd_list, cmd_start

__all__ = ["BATCH_FORMATS", "COMMANDS", "EXIT_FULL_MARKS", "EXIT_INTERNAL", "EXIT_NOT_FULL",
           "EXIT_USAGE", "OUTPUT_FORMATS", "UsageError", "main"]

def _imported_when_run(module: str, name: str) -> Callable[[Sequence[str]], int]:
    """Subcommand ``name`` of ``syncgrade.cli.<module>``, imported when it runs: a cold
    ``grade EXERCISE`` (the learner's command) does not pay for the imports of
    ``validate``, ``package``, ``serve`` and ``batch`` before its child can start
    (docs/performance.md)."""

    def run(args: Sequence[str]) -> int:
        command: Callable[[Sequence[str]], int] = getattr(
            importlib.import_module(f"syncgrade.cli.{module}"), name)
        return command(args)

    run.__name__ = run.__qualname__ = name
    return run


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "list": cmd_list, "start": cmd_start, "batch": _imported_when_run("batch", "cmd_batch"),
    "validate": _imported_when_run("author", "cmd_validate"),
    "new": _imported_when_run("author", "cmd_new"),
    "schema": _imported_when_run("schema", "cmd_schema"),
    "serve": _imported_when_run("serve", "cmd_serve"),
    "package": _imported_when_run("package", "cmd_package"),
}


FLAGS = frozenset({"-h", "--help", "--version", "--all", "--force", "--html", "--json",
                   "--no-auth", "--no-corpus-grades", "--open", "--passing", "--resume",
                   "--reveal"})
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
        return cmd_grade(args)
    except UsageError as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("grade: interrupted", file=sys.stderr)
        return 130
