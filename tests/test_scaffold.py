"""`grade new`: what it writes, what it refuses, and that `grade validate` flags the
scaffold until the author fills it in (while the scaffold already grades)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from syncgrade.authoring import validate as v
from syncgrade.authoring.scaffold import ScaffoldError, scaffold
from syncgrade.cli import main
from syncgrade.rubric import EXERCISES
from syncgrade.rubric.base import Exercise

NEW = "exercise-99"  # far from any real exercise
FILES = [
    "src/syncgrade/rubric/exercise_99.py",
    "exercises/exercise-99/README.md",
    "exercises/exercise-99/submission.py",
    "solutions/exercise-99/submission.py",
    "solutions/exercise-99/mutants/no_wait.py",
    "src/syncgrade/stubs/exercise-99/README.md",
    "src/syncgrade/stubs/exercise-99/submission.py",
]


def _course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    (root / "exercises").mkdir(parents=True)
    (root / "solutions").mkdir()
    return root


def _load(root: Path) -> Exercise:
    path = root / "src" / "syncgrade" / "rubric" / "exercise_99.py"
    spec = importlib.util.spec_from_file_location("scaffolded_exercise_99", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXERCISE  # type: ignore[no-any-return]


def test_new_writes_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _course(tmp_path)
    assert main(["new", NEW, "--title", 'Time a "vmap" batch', "--root", str(root)]) == 0
    out = capsys.readouterr().out
    for rel in FILES:
        assert (root / rel).is_file(), rel
        assert f"wrote {rel}" in out
    exercise = _load(root)
    assert (exercise.id, exercise.title) == (NEW, 'Time a "vmap" batch')
    assert (root / FILES[1]).read_text().startswith('# Exercise 99: Time a "vmap" batch')
    assert (root / FILES[1]).read_bytes() == (root / FILES[5]).read_bytes()
    assert (root / FILES[2]).read_bytes() == (root / FILES[6]).read_bytes()


def test_new_refuses_to_overwrite_without_force(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = _course(tmp_path)
    scaffold(NEW, "First", root)
    stub = root / "exercises" / NEW / "submission.py"
    stub.write_text("# my edits\n")
    assert main(["new", NEW, "--title", "Again", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert stub.read_text() == "# my edits\n"
    assert main(["new", NEW, "--title", "Again", "--root", str(root), "--force"]) == 0
    assert "# my edits" not in stub.read_text()


@pytest.mark.parametrize("bad", ["exercise-x", "ex-3", "exercise-0", "exercise-07",
                                 "exercise-3/../x", ""])
def test_new_rejects_bad_ids(tmp_path: Path, bad: str) -> None:
    root = _course(tmp_path)
    with pytest.raises(ScaffoldError, match="invalid exercise id"):
        scaffold(bad, "T", root)
    assert not any(root.rglob("*.py"))


def test_new_rejects_an_exercise_the_rubrics_declare(tmp_path: Path) -> None:
    existing = next(iter(EXERCISES))
    with pytest.raises(ScaffoldError, match="already exists in the installed rubrics"):
        scaffold(existing, "T", _course(tmp_path))


def test_new_rejects_a_multiline_title(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="one non-empty line"):
        scaffold(NEW, "two\nlines", _course(tmp_path))


def test_the_scaffold_grades_but_does_not_validate(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = _course(tmp_path)
    scaffold(NEW, "A new pitfall", root)
    monkeypatch.setitem(EXERCISES, NEW, _load(root))
    rubrics = v.Rubrics({NEW: EXERCISES[NEW]}, {})
    outcome = v.validate([NEW], root, runs=1, jobs=2, rubrics=rubrics)
    rows = {r.item: r for r in outcome.rows}
    # What the author must still do is flagged...
    assert not rows["rubric"].ok and "TODO left on line(s)" in rows["rubric"].got
    assert not rows["files"].ok and "TODO(author) left in" in rows["files"].got
    assert not rows["coverage"].ok and "not covered: runs" in rows["coverage"].got
    # ...while what the scaffold provides already works.
    for item in ("solution", "stub", "mutant no_wait", "hidden-inputs", "stub-copy",
                 "stable"):
        assert rows[item].ok, (item, rows[item].got)
    assert {r.item for r in outcome.problems} == {"rubric", "files", "coverage"}
