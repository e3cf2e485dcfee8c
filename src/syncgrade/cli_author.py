"""The instructor commands ``grade validate`` and ``grade new`` (registered in cli.py).

    grade validate [EXERCISE ... | --all] [--runs 3] [--jobs 2] [--root DIR] [--json]
    grade new EXERCISE --title TITLE [--root DIR] [--force]

``validate`` exits 0 when every item holds, 1 on any problem (the table says which), 2 on a
usage error. ``new`` exits 0 after writing the files, 2 when it refuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

# The same exit codes as cli.py; cli.py imports this module, so nothing is imported back
# from it at load time (UsageError is imported where it is raised).
EXIT_FULL_MARKS, EXIT_NOT_FULL = 0, 1
_WIDTH = {"exercise": 11, "item": 30, "expected": 34, "got": 56}


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _root(explicit: Path | None) -> Path:
    from syncgrade.authoring.validate import default_root, is_course_root
    from syncgrade.cli import UsageError

    if explicit is not None:
        if not is_course_root(explicit):
            raise UsageError(f"{explicit} is not a course checkout (no exercises/ and "
                             "solutions/ folders)")
        return explicit.resolve()
    root = default_root()
    if root is None:
        raise UsageError("no course checkout here (exercises/ and solutions/); "
                         "run from one or pass --root DIR")
    return root


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cmd_validate(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade validate",
        description="Check exercises before release: the solution gets full marks, the stub "
                    "fails cleanly, every mutant fails exactly the checks it declares, every "
                    "check is covered by a mutant, verdicts are stable, hidden inputs differ "
                    "from the stub's data, and the shipped stub matches exercises/.")
    parser.add_argument("exercises", nargs="*", metavar="EXERCISE",
                        help="exercise ids, e.g. exercise-1")
    parser.add_argument("--all", action="store_true", help="every exercise")
    parser.add_argument("--runs", type=_positive_int, default=3, metavar="N",
                        help="grade each file N times; verdicts must agree (default: 3)")
    parser.add_argument("--jobs", type=_positive_int, default=2, metavar="N",
                        help="files graded at once (default: 2)")
    parser.add_argument("--root", type=Path, metavar="DIR",
                        help="the course checkout holding exercises/ and solutions/ "
                             "(default: the current directory, else the checkout syncgrade "
                             "was installed from)")
    parser.add_argument("--json", action="store_true",
                        help="print the rows and the summary as one JSON object")
    args = parser.parse_args(argv)
    from syncgrade.cli import UsageError

    if args.all and args.exercises:
        raise UsageError("give exercise ids or --all, not both")
    from syncgrade.authoring.validate import (
        ValidateUsageError,
        load_rubrics,
        resolve_ids,
        validate,
    )

    root = _root(args.root)
    rubrics = load_rubrics()
    try:
        ids = resolve_ids(args.exercises, args.all, root, rubrics)
    except ValidateUsageError as exc:
        raise UsageError(str(exc)) from None
    outcome = validate(ids, root, runs=args.runs, jobs=args.jobs, rubrics=rubrics)
    problems = outcome.problems
    summary = (f"{'VALID' if not problems else 'INVALID'}  {len(ids)} exercise(s), "
               f"{len(outcome.rows)} items, {len(problems)} problem(s); "
               f"{outcome.grades} grades in {outcome.seconds:.0f} s "
               f"(runs={args.runs}, jobs={args.jobs})")
    if args.json:
        json.dump({"root": str(root), "valid": not problems, "summary": summary,
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


def cmd_new(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade new",
        description="Scaffold a new exercise: rubric module, statement and stub (and the "
                    "shipped copy), solution, and a mutants folder with one example. "
                    "Fill in every TODO; `grade validate EXERCISE` fails until you have.")
    parser.add_argument("exercise", help="the new id, exercise-<number>")
    parser.add_argument("--title", required=True, help="one-line title")
    parser.add_argument("--root", type=Path, metavar="DIR",
                        help="the course checkout (default: the current directory, else the "
                             "checkout syncgrade was installed from)")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    args = parser.parse_args(argv)
    from syncgrade.authoring.scaffold import ScaffoldError, scaffold
    from syncgrade.cli import UsageError

    root = _root(args.root)
    try:
        written = scaffold(args.exercise, args.title, root, force=args.force)
    except ScaffoldError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"Fill in every TODO, add a mutant per check, then run "
          f"`grade validate {args.exercise}`.")
    return EXIT_FULL_MARKS
