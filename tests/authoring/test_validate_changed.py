"""`grade validate --changed` re-checks only what an edit touched (issue 36): an exercise
is recorded with a fingerprint of everything its validation depends on when it is found
valid, and skipped while that fingerprint holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from syncgrade.authoring import fingerprint as fp
from syncgrade.authoring import validate as v
from syncgrade.cli import main
from syncgrade.courses import ExerciseFiles, open_course

ROOT = Path(__file__).resolve().parents[2]


def _course(tmp_path: Path) -> Path:
    """A course outside the checkout holding exercise-2 (the cheapest to grade) with its
    solution beside it."""
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises" / "exercise-2", root / "exercise-2")
    shutil.copy(ROOT / "solutions" / "exercise-2" / "solution.py",
                root / "exercise-2" / "solution.py")
    (root / "course.toml").write_text('title = "changed"\n')
    return root


def test_the_fingerprint_follows_every_file_validation_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _course(tmp_path)
    files = ExerciseFiles("exercise-2", root / "exercise-2")
    first = fp.fingerprint(files, root, "runs=1")
    # Not course content: a learner's submission next to the stub changes nothing.
    (files.folder / "submission.py").write_text("x = 1\n")
    assert fp.fingerprint(files, root, "runs=1") == first
    assert fp.fingerprint(files, root, "runs=3") != first  # other options
    corpus = files.corpus_files("flawed")[0]
    seen = {first}
    for path in (files.declaration, files.readme, files.stub, files.solution, files.mutants,
                 corpus, root / "course.toml"):
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        changed = fp.fingerprint(files, root, "runs=1")
        assert changed not in seen, path
        seen.add(changed)
        path.write_bytes(original)
        assert fp.fingerprint(files, root, "runs=1") == first, path
    (files.corpus / "correct" / "new.py").write_text("# style: new\n# expect: pass\n")
    assert fp.fingerprint(files, root, "runs=1") not in seen  # a new corpus file
    (files.corpus / "correct" / "new.py").unlink()
    import syncgrade.version

    monkeypatch.setattr(syncgrade.version, "__version__", "999")
    assert fp.fingerprint(files, root, "runs=1") not in seen  # another syncgrade


def test_changed_skips_what_was_valid_and_rechecks_an_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _course(tmp_path)
    cache = tmp_path / "cache.json"
    monkeypatch.setenv(fp.CACHE_ENV, str(cache))
    argv = ["validate", "exercise-2", "--course", str(root), "--runs", "1",
            "--no-corpus-grades"]
    assert main(argv) == 0  # validated in full and recorded
    assert "VALID  1 exercise(s), " in capsys.readouterr().out
    assert set(json.loads(cache.read_text())) == {"exercise-2"}

    def nothing_graded(course: Any, pool: Any = None) -> Any:
        def grade(*args: Any) -> Any:
            raise RuntimeError("graded although nothing changed")
        return grade

    monkeypatch.setattr(v, "course_grade", nothing_graded)
    assert main([*argv, "--changed"]) == 0
    out = capsys.readouterr().out
    assert "(1 unchanged since last valid, not re-checked), 1 items, 0 problem(s); 0 grades" \
        in out, out
    assert "exercise-2   unchanged" in out
    # Without --changed everything is checked again (and grading is reached).
    assert main(argv) == 1
    assert "graded although nothing changed" in capsys.readouterr().out
    assert json.loads(cache.read_text()) == {}  # found invalid: forgotten

    # Recorded again, then an edit of the solution alone makes --changed re-check it.
    course = open_course(root, reload=True)
    files = course.folder("exercise-2")
    cache.write_text(json.dumps({"exercise-2": fp.fingerprint(
        files, course.root, "runs=1 corpus-grades=False")}))
    assert main([*argv, "--changed"]) == 0
    capsys.readouterr()
    files.solution.write_text(files.solution.read_text() + "\n# a comment\n")
    assert main([*argv, "--changed"]) == 1
    out = capsys.readouterr().out
    assert "unchanged" not in out and "graded although nothing changed" in out
