"""Solution markers: `grade stub EXERCISE` writes stub.py from solution.py, `--check` and
`grade validate`'s `stub markers` row say whether they agree, and markers that do not pair
up are one line naming the file and line. Nothing is graded."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_support import copy_whole_course

from syncgrade import cli
from syncgrade.authoring.markers import MarkerError, stub_from_solution
from syncgrade.authoring.validate import plan_exercise
from syncgrade.courses import forget, open_course

SOLUTION = """import time


def timed(fn, x):
    # BEGIN SOLUTION
    start = time.perf_counter()
    fn(x).block_until_ready()
    return time.perf_counter() - start
    # END SOLUTION
    # BEGIN STUB
    # # TODO: wait for the result before you stop the timer
    #
    # raise NotImplementedError
    # END STUB
"""
STUB = """import time


def timed(fn, x):
    # TODO: wait for the result before you stop the timer

    raise NotImplementedError
"""


def test_the_stub_is_the_solution_without_its_answer() -> None:
    assert stub_from_solution(SOLUTION) == STUB
    assert stub_from_solution("x = 1\n") is None  # no markers: a hand-written stub
    nbgrader = "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"
    assert stub_from_solution(nbgrader) == ""
    compile(SOLUTION, "solution.py", "exec")  # the solution runs as it is


@pytest.mark.parametrize(("text", "says"), [
    ("# BEGIN SOLUTION\nx = 1\n", "solution.py:1: BEGIN SOLUTION is never closed"),
    ("x = 1\n# END SOLUTION\n", "solution.py:2: '# END SOLUTION' outside any block"),
    ("# BEGIN SOLUTION\n# BEGIN STUB\n", "solution.py:2: '# BEGIN STUB' inside the "
                                         "SOLUTION block opened on line 1"),
    ("# BEGIN STUB\nx = 1\n# END STUB\n", "solution.py:2: a line in a STUB block must be"),
])
def test_markers_that_do_not_pair_up_name_the_line(text: str, says: str) -> None:
    with pytest.raises(MarkerError, match="^" + says.replace("(", r"\(")):
        stub_from_solution(text)


def _commented(text: str) -> str:
    return "".join(f"# {line}" if line.strip() else "#\n"
                   for line in text.splitlines(keepends=True))


def test_grade_stub_and_validate_agree(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    course = tmp_path / "course"
    copy_whole_course(course, "corpus")  # each solution.py beside its exercise
    files = open_course(course).folder("exercise-1")
    stub = files.stub.read_text()
    files.solution.write_text("# BEGIN SOLUTION\n" + files.solution.read_text()
                              + "# END SOLUTION\n# BEGIN STUB\n" + _commented(stub)
                              + "# END STUB\n")
    files.stub.unlink()
    where = ["--course", str(course)]
    assert cli.main(["stub", "exercise-1", *where]) == 0
    assert files.stub.read_text() == stub  # the hand-written stub, from one source
    assert cli.main(["stub", "exercise-1", "--check", *where]) == 0

    def row() -> tuple[str, bool]:
        forget(course)
        found = [r for r in plan_exercise("exercise-1", open_course(course),
                                          grade_corpus=False).rows
                 if r.item == "stub markers"]
        return found[0].got, found[0].ok

    assert row() == ("agrees", True)
    files.stub.write_text(stub.replace("def ", "def  ", 1))
    capsys.readouterr()
    assert cli.main(["stub", "exercise-1", "--check", *where]) == cli.EXIT_NOT_FULL
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "exercise-1/stub.py is not what" in err
    got, ok = row()
    assert not ok and got.startswith("line ") and "grade stub exercise-1" in got
    files.solution.write_text(files.solution.read_text().replace("# END STUB\n", ""))
    got, ok = row()
    assert not ok and "exercise-1/solution.py:1: BEGIN SOLUTION" not in got
    assert "BEGIN STUB is never closed" in got and "exercise-1/solution.py:" in got
    assert cli.main(["stub", "exercise-1", *where]) == cli.EXIT_NOT_FULL
    assert cli.main(["stub", "exercise-2", *where]) == cli.EXIT_USAGE  # no markers
