"""What ``grade validate --changed`` keeps: a fingerprint of each exercise found valid.

An exercise's validation depends on its files, syncgrade's version and the validation's
options; :func:`fingerprint` hashes them all, and :func:`read_valid`/:func:`write_valid`
keep the fingerprints of the exercises last found valid in :func:`cache_file`. While an
exercise's fingerprint is the recorded one, validating it again would find what it found
(:func:`syncgrade.authoring.validate.validate` skips it with ``changed=True``). A record
that cannot be read or written only costs a re-check; it never skips a changed exercise.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from syncgrade.courses import ExerciseFiles

__all__ = ["CACHE_ENV", "cache_file", "fingerprint", "read_valid", "write_valid"]


CACHE_ENV = "SYNCGRADE_VALIDATE_CACHE"
"""A file to keep the fingerprints of valid exercises in (default: one per course under
``$XDG_CACHE_HOME/syncgrade/``, else ``~/.cache/syncgrade/``)."""


def fingerprint(files: ExerciseFiles, course_root: Path, options: str) -> str:
    """What one exercise's validation depends on, hashed: syncgrade's version, the
    validation ``options`` (runs, corpus grades), the course's ``course.toml``, and the
    exercise's declaration, statement, stub, solution, ``mutants.toml`` and every corpus
    file (names and bytes; a missing file counts as missing). A module the declaration
    imports from elsewhere is not in it: validate without ``--changed`` after editing one."""
    from syncgrade.version import __version__

    digest = hashlib.sha256(f"syncgrade {__version__}\n{options}\n".encode())
    corpus = sorted(files.corpus.rglob("*.py")) if files.corpus.is_dir() else []
    for path in (course_root / "course.toml", files.declaration, files.readme, files.stub,
                 files.solution, files.mutants, *corpus):
        digest.update(f"{os.path.relpath(path, course_root)}\n".encode())
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def cache_file(course_root: Path) -> Path:
    """Where the fingerprints of ``course_root``'s valid exercises are kept
    (:data:`CACHE_ENV`, else the user's cache folder, one file per course folder)."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    key = hashlib.sha256(str(course_root.resolve()).encode()).hexdigest()[:16]
    return Path(base) / "syncgrade" / f"validate-{key}.json"


def read_valid(path: Path) -> dict[str, str]:
    """The recorded fingerprints (exercise id -> fingerprint of its last valid run); an
    unreadable or foreign file is an empty record (everything is re-checked)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def write_valid(path: Path, valid: dict[str, str]) -> None:
    """Record ``valid``; a cache that cannot be written only costs a re-check later."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(valid, indent=1, sort_keys=True), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass
