"""`grade start`: copy an exercise's statement and stub into ./exercises/EXERCISE/.

The stubs ship inside the package (``syncgrade/stubs``, the checkout's ``exercises/``
folder), so learners who installed syncgrade without a checkout can start. The solutions
never ship.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

STARTER_FILES = ("README.md", "submission.py")


class StarterError(Exception):
    """The stub could not be copied (missing from the install, or would overwrite work)."""


def stub_dir(exercise_id: str) -> Traversable:
    folder = resources.files("syncgrade").joinpath("stubs", exercise_id)
    if not folder.joinpath("submission.py").is_file():
        raise StarterError(f"the stub for {exercise_id} is missing from this installation")
    return folder


def start(exercise_id: str, destination: Path, *, force: bool = False) -> list[Path]:
    """Copy the starter files into ``destination/exercises/<id>/``; return the paths.

    Refuses to overwrite an existing file unless ``force``: a learner's work is never lost.
    """
    source = stub_dir(exercise_id)
    target = destination / "exercises" / exercise_id
    written = [target / name for name in STARTER_FILES]
    existing = [p for p in written if p.exists()]
    if existing and not force:
        raise StarterError(f"{existing[0]} already exists (use --force to overwrite it)")
    target.mkdir(parents=True, exist_ok=True)
    for name, path in zip(STARTER_FILES, written, strict=True):
        path.write_bytes(source.joinpath(name).read_bytes())
    return written
