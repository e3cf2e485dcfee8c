"""`grade new`: what it writes into a course folder, what it refuses, and that `grade
validate` flags the scaffold until the author fills it in (while the scaffold already
grades)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from syncgrade.authoring import validate as v
from syncgrade.authoring.scaffold import ScaffoldError, scaffold
from syncgrade.cli import main
from syncgrade.courses import open_course

NEW = "exercise-99"  # far from any real exercise
FILES = [
    "exercise-99/exercise.py",
    "exercise-99/README.md",
    "exercise-99/stub.py",
    "exercise-99/solution.py",
    "exercise-99/mutants.toml",
    "exercise-99/corpus/correct/waits_each_call.py",
    "exercise-99/corpus/flawed/no_wait.py",
]


def test_new_creates_the_course_folder_and_writes_every_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", NEW, "--title", 'Time a "vmap" batch', "--course", "course"]) == 0
    out = capsys.readouterr().out
    root = tmp_path / "course"
    assert (root / "course.toml").read_text() == 'title = "course"\n'
    for rel in FILES:
        assert (root / rel).is_file(), rel
        assert f"wrote course/{rel}" in out
    course = open_course(root)
    exercise = course.get(NEW)
    assert (exercise.id, exercise.title) == (NEW, 'Time a "vmap" batch')
    assert exercise.statement.startswith('# Exercise 99: Time a "vmap" batch')
    assert course.errors == {}
    assert "--course course" in out  # how to validate it


def test_new_adds_to_an_existing_course_and_refuses_to_overwrite_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "course"
    scaffold("exercise-1", "First", root)
    (root / "course.toml").write_text('title = "Mine"\n')
    scaffold(NEW, "Second", root)
    assert (root / "course.toml").read_text() == 'title = "Mine"\n'  # left as it was
    assert list(open_course(root).exercises) == ["exercise-1", NEW]
    stub = root / NEW / "stub.py"
    stub.write_text("# my edits\n")
    assert main(["new", NEW, "--title", "Again", "--course", str(root)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert stub.read_text() == "# my edits\n"
    assert main(["new", NEW, "--title", "Again", "--course", str(root), "--force"]) == 0
    assert "# my edits" not in stub.read_text()


@pytest.mark.parametrize("bad", ["Exercise-3", "exercise_3", "-x", "x-", "a--b",
                                 "exercise-3/../x", ""])
def test_new_rejects_bad_ids(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ScaffoldError, match="invalid exercise id"):
        scaffold(bad, "T", tmp_path / "course")
    assert not (tmp_path / "course").exists()


def test_new_takes_any_slug_and_declares_the_measurement_contract(tmp_path: Path) -> None:
    root = tmp_path / "course"
    scaffold("vmap-batch", "Batch with vmap", root)
    course = open_course(root)
    exercise = course.get("vmap-batch")
    assert exercise.statement.startswith("# vmap-batch: Batch with vmap")
    text = course.folder("vmap-batch").declaration.read_text()
    # The interval checks come from Samples (docs/authoring.md), not listed by hand.
    assert "Samples(MAIN, SAMPLES, REPEATS)" in text and "c.sync_before_stop" not in text
    ids = [check.id for check in exercise.checks]
    assert ids[:2] == ["runs", "numpy-match"]
    assert {"sample-count", "sync-before-stop", "interval-clean", "covers-device-work"} <= set(
        ids)
    assert {c.id: c.points for c in exercise.checks}["sync-before-stop"] == 2
    docs = (Path(__file__).resolve().parents[2] / "docs" / "validate.md").read_text()
    assert len(ids) == 11 and "the one mutant covers two checks of eleven." in docs


def test_new_refuses_to_write_into_an_installed_package(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    installed = tmp_path / "lib" / "python3.11" / "site-packages" / "syncgrade" / "course"
    with pytest.raises(ScaffoldError, match="inside an installed package"):
        scaffold(NEW, "T", installed)
    assert main(["new", NEW, "--title", "T", "--course", str(installed)]) == 2
    err = capsys.readouterr().err
    assert "inside an installed package" in err and "--course DIR" in err
    assert not installed.exists()


def test_validate_shows_the_author_s_traceback_of_a_crashing_make_references(
        tmp_path: Path) -> None:
    root = tmp_path / "course"
    scaffold(NEW, "T", root)
    path = root / NEW / "exercise.py"
    text = path.read_text().replace('    return {"predict": tolerance.tanh_matmul',
                                    '    return {"predict": 1 / 0 + tolerance.tanh_matmul')
    path.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "1 / 0" in row)
    outcome = v.validate([NEW], open_course(root), runs=1, jobs=1)
    got = {r.item: r for r in outcome.rows}["rubric"].got
    assert got.startswith(f"rubric error in {NEW}: {path}:{line}: make_references() raised "
                          "ZeroDivisionError: division by zero\n"), got
    assert f'File "{path}", line {line}, in make_references' in got


def test_new_rejects_a_multiline_title_and_a_file_for_a_course(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="one non-empty line"):
        scaffold(NEW, "two\nlines", tmp_path / "course")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ScaffoldError, match="is not a folder"):
        scaffold(NEW, "T", tmp_path / "file")


def test_the_scaffold_grades_but_does_not_validate(tmp_path: Path) -> None:
    root = tmp_path / "course"
    scaffold(NEW, "A new pitfall", root)
    outcome = v.validate([NEW], open_course(root), runs=1, jobs=2)
    rows = {r.item: r for r in outcome.rows}
    # What the author must still do is flagged...
    assert not rows["rubric"].ok and "TODO left on line(s)" in rows["rubric"].got
    assert not rows["files"].ok and "TODO(author) left in" in rows["files"].got
    assert "exercise-99/corpus/flawed/no_wait.py" in rows["files"].got
    assert not rows["coverage"].ok and "not covered: runs" in rows["coverage"].got
    # ...while what the scaffold provides already works.
    for item in ("mutants", "corpus", "solution", "stub", "mutant no_wait",
                 "corpus correct/waits_each_call", "corpus flawed/no_wait", "hidden-inputs",
                 "stable"):
        assert rows[item].ok, (item, rows[item].got)
    assert {r.item for r in outcome.problems} == {"rubric", "files", "coverage"}


def test_an_empty_or_missing_corpus_folder_is_never_valid(tmp_path: Path) -> None:
    root = tmp_path / "course"
    scaffold(NEW, "A new pitfall", root)
    (root / NEW / "corpus" / "correct" / "waits_each_call.py").unlink()
    (root / NEW / "corpus" / "flawed" / "no_wait.py").rename(root / NEW / "flawed.py")
    (root / NEW / "corpus" / "flawed").rmdir()
    plan = v.plan_exercise(NEW, open_course(root))
    corpus = next(r for r in plan.rows if r.item == "corpus")
    assert not corpus.ok
    assert corpus.got == (f"{NEW}/corpus/correct/ holds no .py file; no folder "
                          f"{NEW}/corpus/flawed/")


def test_corpus_headers_and_check_ids_are_checked_before_grading(tmp_path: Path) -> None:
    root = tmp_path / "course"
    scaffold(NEW, "A new pitfall", root)
    flawed = root / NEW / "corpus" / "flawed" / "no_wait.py"
    flawed.write_text(flawed.read_text().replace("# expect-fail: sync-before-stop",
                                                 "# expect-fail: sync-befor-stop"))
    (root / NEW / "corpus" / "correct" / "no_header.py").write_text("x = 1\n")
    mutants = root / NEW / "mutants.toml"
    mutants.write_text(mutants.read_text().replace('"covers-device-work"', '"covers-work"'))
    plan = v.plan_exercise(NEW, open_course(root))
    rows = {r.item: r for r in plan.rows}
    assert "unknown check id 'sync-befor-stop' (did you mean 'sync-before-stop'?)" in rows[
        "corpus flawed/no_wait"].got
    assert not rows["corpus correct/no_header"].ok
    assert "unknown check id 'covers-work' (did you mean 'covers-device-work'?)" in rows[
        "mutant no_wait"].got
    graded = {t.item for t in plan.targets}
    assert graded == {"solution", "stub", "corpus correct/waits_each_call"}


def test_new_writes_the_solution_where_course_toml_keeps_them(tmp_path: Path) -> None:
    """A course whose course.toml names a solutions folder (the built-in course's layout:
    exercises/ and solutions/) gets the new solution there, never in the exercise folder."""
    root = tmp_path / "exercises"
    root.mkdir()
    (root / "course.toml").write_text('title = "T"\nsolutions = "../solutions"\n')
    written = scaffold(NEW, "Outside", root)
    solution = tmp_path / "solutions" / NEW / "solution.py"
    assert solution in written and solution.is_file()
    assert not (root / NEW / "solution.py").exists()
    course = open_course(root, reload=True)
    assert course.folder(NEW).solution == solution.resolve() and course.errors == {}
    shutil.rmtree(root / NEW)  # the solution is still there: it is not overwritten
    with pytest.raises(ScaffoldError, match=r"already exists \(\.\./solutions/"):
        scaffold(NEW, "Outside", root)
