"""Grade the submissions whose terminal views tests/picture/test_terminal_golden.py keeps as golden
transcripts, and store each report with the submission's source (reports hold measured
times, so they are graded once and kept, not graded in the test).

Run from the repository root after a change to what the checks say, then update the
transcripts and review their diff::

    .venv/bin/python tests/picture/terminal_golden/make_reports.py
    SYNCGRADE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/picture/test_terminal_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

import syncgrade

HERE = Path(__file__).parent
COURSE = Path("exercises")  # the built-in course
SOLUTIONS = Path("solutions")  # its reference solutions
SUBMISSIONS = {
    # name: (exercise, path in the built-in course; a solution.py is in SOLUTIONS)
    "exercise-1-stub": ("exercise-1", "exercise-1/stub.py"),
    "exercise-1-solution": ("exercise-1", "exercise-1/solution.py"),
    "exercise-2-forgets-compilation": (
        "exercise-2", "exercise-2/corpus/flawed/b_forgets_compilation.py"),
    "exercise-6-stub": ("exercise-6", "exercise-6/stub.py"),
    "exercise-6-no-warmup": ("exercise-6", "exercise-6/corpus/flawed/no_warmup.py"),
    "exercise-7-first-call-no-wait": (
        "exercise-7", "exercise-7/corpus/flawed/first_call_no_wait.py"),
    "exercise-7-warm-without-warmup": (
        "exercise-7", "exercise-7/corpus/flawed/warm_without_warmup.py"),
}


def main() -> None:
    for name, (exercise, relative) in SUBMISSIONS.items():
        path = (SOLUTIONS if relative.endswith("solution.py") else COURSE) / relative
        report = syncgrade.grade(exercise, path, display_name=relative, timeout=120)
        stored = {"report": json.loads(report.model_dump_json()),
                  "source": path.read_text(encoding="utf-8")}
        (HERE / f"{name}.json").write_text(json.dumps(stored, indent=1, ensure_ascii=False)
                                           + "\n", encoding="utf-8")
        failed = [c.id for c in report.checks if c.status == "failed"]
        print(f"{name}: {report.score:g}/{report.max_score:g}, failed {failed}")


if __name__ == "__main__":
    main()
