"""The instructor commands ``grade validate`` and ``grade new`` (registered in syncgrade.cli).

    grade validate [EXERCISE ... | --all] [--course DIR] [--runs 3] [--jobs 2] [--json]
                   [--no-corpus-grades] [--changed]
    grade validate [EXERCISE ...] --write-mutants DIR [--course DIR]
    grade new EXERCISE --title TITLE [--course DIR] [--force]

``--course``: a course folder (or an installed course's name); default
``$SYNCGRADE_COURSE``, else the built-in course. ``grade new`` creates the folder when it
does not exist, and writes into the built-in course only in a source checkout.

``validate`` exits 0 when every item holds, 1 on any problem (the table says which), 2 on a
usage error. With ``--write-mutants DIR`` it grades nothing: it writes each mutant (the
solution with its edits applied, under a comment header) to ``DIR/<exercise>/<name>.py``
and exits 0, or 1 (writing nothing) when a mutants.toml or an edit is wrong. ``new`` exits
0 after writing the files, 2 when it refuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    EXIT_NOT_FULL,
    UsageError,
    add_course,
    course_root,
    open_course,
    parse_anywhere,
)

if TYPE_CHECKING:
    from syncgrade.courses import Course

_WIDTH = {"exercise": 11, "item": 30, "expected": 34, "got": 56}


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _new_root(spec: str | None) -> Path:
    """Where ``grade new`` writes: ``--course`` (created when missing), else
    ``$SYNCGRADE_COURSE``, else the built-in course when syncgrade runs from a source
    checkout (never into an installed package)."""
    import os

    from syncgrade.courses import BUILTIN_ROOT, CHECKOUT_COURSE, COURSE_ENV

    if spec is None and not os.environ.get(COURSE_ENV, "").strip():
        if BUILTIN_ROOT != CHECKOUT_COURSE or not (
                CHECKOUT_COURSE.parent / "pyproject.toml").is_file():
            raise UsageError("give the course folder to write into: --course DIR")
        return BUILTIN_ROOT
    if spec is not None and not Path(spec).expanduser().exists():
        from syncgrade.courses import installed_courses

        if spec not in installed_courses():
            return Path(spec).expanduser().resolve()  # a new course folder
    return course_root(spec)


def _add_course(parser: argparse.ArgumentParser) -> None:
    add_course(parser)


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cmd_validate(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade validate",
        description="Check a course's exercises before release: every file is present and "
                    "every header and check id is right (before anything is graded), the "
                    "solution gets full marks, the stub fails cleanly, every mutant and "
                    "corpus file gets exactly the verdict it declares, every check is "
                    "covered by a mutant, verdicts are stable, and hidden inputs differ from "
                    "the stub's data.")
    parser.add_argument("exercises", nargs="*", metavar="EXERCISE",
                        help="exercise ids, e.g. exercise-1")
    parser.add_argument("--all", action="store_true", help="every exercise")
    parser.add_argument("--runs", type=_positive_int, default=3, metavar="N",
                        help="grade each file N times; verdicts must agree (default: 3)")
    parser.add_argument("--jobs", type=_positive_int, default=2, metavar="N",
                        help="files graded at once (default: 2)")
    _add_course(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the rows and the summary as one JSON object")
    parser.add_argument("--no-corpus-grades", action="store_true",
                        help="check the corpus files' headers but do not grade them (the "
                             "test suite grades the built-in course's corpus)")
    parser.add_argument("--changed", action="store_true",
                        help="re-check only the exercises whose files changed since they "
                             "were last valid (declaration, statement, stub, solution, "
                             "mutants, corpus, course.toml, syncgrade's version, the same "
                             "--runs and corpus option)")
    parser.add_argument("--write-mutants", type=Path, metavar="DIR",
                        help="grade nothing; write each mutant (the solution with its edits "
                             "applied) to DIR/<exercise>/<name>.py, for every exercise unless "
                             "some are named")
    args = parse_anywhere(parser, argv)
    if args.all and args.exercises:
        raise UsageError("give exercise ids or --all, not both")
    course = open_course(args.course)
    if args.write_mutants is not None:
        return _write_mutants(args.exercises, course, args.write_mutants)
    from syncgrade.authoring.validate import (
        ValidateUsageError,
        load_rubrics,
        resolve_ids,
        validate,
    )

    rubrics = load_rubrics(course)
    try:
        ids = resolve_ids(args.exercises, args.all, course)
    except ValidateUsageError as exc:
        raise UsageError(str(exc)) from None
    outcome = validate(ids, course, runs=args.runs, jobs=args.jobs, rubrics=rubrics,
                       grade_corpus=not args.no_corpus_grades, changed=args.changed)
    problems = outcome.problems
    unchanged = (f" ({len(outcome.skipped)} unchanged since last valid, not re-checked)"
                 if outcome.skipped else "")
    summary = (f"{'VALID' if not problems else 'INVALID'}  {len(ids)} exercise(s){unchanged}, "
               f"{len(outcome.rows)} items, {len(problems)} problem(s); "
               f"{outcome.grades} grades in {outcome.seconds:.0f} s "
               f"(runs={args.runs}, jobs={args.jobs})")
    if args.json:
        json.dump({"course": str(course.root), "valid": not problems, "summary": summary,
                   "rows": [asdict(r) for r in outcome.rows]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_NOT_FULL if problems else EXIT_FULL_MARKS
    header = {"exercise": "exercise", "item": "item", "expected": "expected", "got": "got"}
    lines = [header] + [{"exercise": r.exercise, "item": r.item, "expected": r.expected,
                         "got": r.got} for r in outcome.rows]
    oks = ["ok"] + ["ok" if r.ok else "FAIL" for r in outcome.rows]
    for line, ok in zip(lines, oks, strict=True):
        print("  ".join(f"{_cell(line[k], w):<{w}}" for k, w in _WIDTH.items()) + f"  {ok}")
    if problems:
        print("\nProblems:")
        for r in problems:
            print(f"  {r.exercise} {r.item}: expected {r.expected}; got {r.got}")
    print(f"\n{summary}")
    return EXIT_NOT_FULL if problems else EXIT_FULL_MARKS


def _write_mutants(exercises: Sequence[str], course: Course, out: Path) -> int:
    from syncgrade.authoring.mutants import MutantError, write_mutants
    from syncgrade.authoring.validate import ValidateUsageError, resolve_ids
    try:
        ids = resolve_ids(exercises, not exercises, course)
    except ValidateUsageError as exc:
        raise UsageError(str(exc)) from None
    try:
        written = write_mutants(course, ids, out)
    except MutantError as exc:
        print(f"grade validate: {exc}", file=sys.stderr)
        return EXIT_NOT_FULL
    print(f"wrote {len(written)} mutants of {len(ids)} exercise(s) under {out}")
    return EXIT_FULL_MARKS


def cmd_new(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade new",
        description="Scaffold a new exercise folder in a course (created when it does not "
                    "exist): exercise.py (the declaration), README.md, stub.py, solution.py, "
                    "mutants.toml with one example, and one corpus file of each kind. Fill "
                    "in every TODO; `grade validate EXERCISE --course DIR` fails until you "
                    "have.")
    parser.add_argument("exercise", help="the new id: lowercase letters, digits and '-' "
                        "(e.g. exercise-9 or vmap-batch); the folder's name")
    parser.add_argument("--title", required=True, help="one-line title")
    _add_course(parser)
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    args = parse_anywhere(parser, argv)
    from syncgrade.authoring.scaffold import ScaffoldError, scaffold
    root = _new_root(args.course)
    try:
        written = scaffold(args.exercise, args.title, root, force=args.force)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from None
    shown = Path.cwd()
    for path in written:
        print(f"wrote {path.relative_to(shown) if path.is_relative_to(shown) else path}")
    course = "" if args.course is None else f" --course {args.course}"
    print(f"Fill in every TODO, add a mutant per check and corpus files, then run "
          f"`grade validate {args.exercise}{course}`.")
    return EXIT_FULL_MARKS
