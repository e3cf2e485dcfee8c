"""``grade package``: the bundle a platform needs to grade one exercise with syncgrade.

    grade package gradescope EXERCISE [-o autograder.zip] [--course DIR] [--wheel FILE]
                                      [--timeout S] [--overhead S] [--memory GIB]
                                      [--html]

Gradescope's autograder zip (its spec: ``setup.sh`` and ``run_autograder`` at the root; the
zip is unpacked into ``/autograder/source``)::

    setup.sh         install Python 3.11+ if missing, a venv, and the syncgrade wheel with
                     its dependencies (once, when Gradescope builds the image)
    run_autograder   grade /autograder/submission into /autograder/results/results.json
                     (syncgrade-gradescope; a results file even if setup had failed)
    syncgrade.json   {"exercise": ..., "timeout": ..., "overhead": ..., "memory_gib": ...,
                     "html": ...[, "course": "course"]}: the results file is written
                     within timeout + overhead seconds (default 60 + 20): set the
                     assignment's autograder timeout above that, with a margin
    wheels/syncgrade-<version>-py3-none-any.whl
                     with only EXERCISE of the built-in course (its declaration,
                     statement and stub), not the other exercises
    course/          of the --course folder, when it is a folder (not the built-in
                     course): its course.toml and EXERCISE's exercise.py, README.md and
                     stub.py; never a solution, mutants, corpus or another exercise

The zip is reproducible: the same wheel, course and options give a byte-identical zip
(fixed timestamps, modes and order). When Gradescope runs it as root without
``CAP_SYS_ADMIN`` (Docker's default), ``syncgrade-gradescope`` keeps the learner's code out
of ``source/`` and the course by permissions (docs/security.md, "Modes").

Both scripts honour ``SYNCGRADE_AUTOGRADER_ROOT`` (default ``/autograder``) and
``SYNCGRADE_VENV`` (default ``$ROOT/venv``); ``setup.sh`` also ``SYNCGRADE_PYTHON`` (the
interpreter to make the venv with), ``SYNCGRADE_PIP`` (the pip command) and
``SYNCGRADE_PIP_ARGS`` (extra pip arguments). The tests use them to run the bundle on a
simulated root.

The wheel is ``--wheel FILE``, or built from this syncgrade's source tree (``pip wheel
--no-deps`` on a copy of it, so the checkout is left as it was). Exit 0; a usage error
(unknown exercise, no source tree and no ``--wheel``, a failed build) is exit 2 with one
line on stderr.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from syncgrade.cli.common import (
    UsageError,
    add_course,
    add_memory,
    add_overhead,
    add_timeout,
    known_exercise,
    open_course,
    parse_anywhere,
)

PLATFORMS = ("gradescope",)
EXECUTABLE = 0o755

SETUP_SH = r"""#!/usr/bin/env bash
# syncgrade: Gradescope's setup.sh (made by `grade package gradescope`). Gradescope runs it
# once, as root, when it builds the autograder image: Python 3.11+, a venv, and the
# syncgrade wheel shipped in this zip with its dependencies (jax, numpy, pydantic).
set -euo pipefail
ROOT="${SYNCGRADE_AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="${SYNCGRADE_VENV:-$ROOT/venv}"
PYTHON="${SYNCGRADE_PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    apt-get update && apt-get install -y python3.11 python3.11-venv
    PYTHON=python3.11
  fi
  "$PYTHON" -m venv "$VENV"
fi
PIP="${SYNCGRADE_PIP:-$VENV/bin/python -m pip}"
# shellcheck disable=SC2086  # PIP and SYNCGRADE_PIP_ARGS are word lists on purpose
$PIP install ${SYNCGRADE_PIP_ARGS:-} "$SOURCE"/wheels/syncgrade-*.whl
"$VENV/bin/python" -c 'import syncgrade; print("syncgrade", syncgrade.__version__, "installed")'
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# syncgrade: Gradescope's run_autograder (made by `grade package gradescope`). Grades
# $ROOT/submission with the configuration in $ROOT/source/syncgrade.json and always leaves
# $ROOT/results/results.json (the grader's stdout is shown to instructors only).
set -uo pipefail
ROOT="${SYNCGRADE_AUTOGRADER_ROOT:-/autograder}"
VENV="${SYNCGRADE_VENV:-$ROOT/venv}"
cd "$ROOT" || exit 1
if [ -x "$VENV/bin/syncgrade-gradescope" ]; then
  exec "$VENV/bin/syncgrade-gradescope" --root "$ROOT"
fi
echo "syncgrade: $VENV/bin/syncgrade-gradescope is missing: did setup.sh fail?"
mkdir -p "$ROOT/results"
MESSAGE="The autograder is not set up correctly, so your submission was not graded; "
MESSAGE+="this is not your fault. Please tell course staff."
printf '{"score": 0.0, "execution_time": 0, "output": "%s", "stdout_visibility": "hidden",
 "tests": [], "extra_data": {"syncgrade": {"status": "error", "cause": "grader_fault"}}}\n' \
  "$MESSAGE" > "$ROOT/results/results.json"
"""


def cmd_package(argv: Sequence[str]) -> int:
    """``grade package PLATFORM EXERCISE``: write the platform's bundle (see the module
    docstring). Returns 0; usage errors raise :class:`UsageError`."""
    parser = argparse.ArgumentParser(
        prog="grade package",
        description="Write the bundle a platform needs to grade EXERCISE with syncgrade: "
                    "for gradescope, the autograder zip (setup.sh, run_autograder, the "
                    "syncgrade wheel, the configuration and your course folder).")
    parser.add_argument("platform", choices=PLATFORMS)
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"),
                        metavar="ZIP", help="where to write it (default: autograder.zip)")
    parser.add_argument("--wheel", type=Path, metavar="FILE",
                        help="the syncgrade wheel to ship (default: build one from this "
                             "syncgrade's source tree)")
    parser.add_argument("--html", action="store_true",
                        help="HTML outputs with pictures of each failing interval")
    add_course(parser)
    add_timeout(parser)
    add_overhead(parser)
    add_memory(parser)
    args = parse_anywhere(parser, argv)
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    config: dict[str, object] = {"exercise": args.exercise, "timeout": args.timeout,
                                 "overhead": args.overhead, "memory_gib": args.memory,
                                 "html": args.html}
    course_dir = None if course.builtin else Path(course.root)
    if course_dir is not None:
        config["course"] = "course"
    with tempfile.TemporaryDirectory(prefix="syncgrade-package-") as tmp:
        wheel = args.wheel if args.wheel is not None else build_wheel(Path(tmp))
        if not wheel.is_file() or not wheel.name.endswith(".whl"):
            raise UsageError(f"--wheel {wheel}: not a wheel file")
        names = write_gradescope_zip(args.output, config, wheel, course_dir)
    print(f"wrote {args.output}: {', '.join(names)}")
    return 0


SHIPPED = ("exercise.py", "README.md", "stub.py")
"""What a bundle carries of the exercise it grades: its declaration, statement and stub.
Never its solution, mutants or corpus, nor any other exercise of the course."""
TIMESTAMP = (2024, 1, 1, 0, 0, 0)  # every entry's: the same input gives the same bytes
WHEEL_COURSE = "syncgrade/course/"  # the built-in course inside the wheel


def write_gradescope_zip(target: Path, config: dict[str, object], wheel: Path,
                         course_dir: Path | None) -> list[str]:
    """Write Gradescope's autograder zip to ``target``; returns its top-level entries.

    Only ``config["exercise"]`` ships (:data:`SHIPPED` of its folder, the course's
    ``course.toml``): the wheel is rewritten without the built-in course's other exercises,
    and of ``course_dir`` nothing else is copied. Reproducible: every entry has the same
    timestamp and a fixed mode, in a fixed order, so the same input gives a byte-identical
    zip."""
    exercise = str(config["exercise"])
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
            _add(bundle, "setup.sh", SETUP_SH.encode(), EXECUTABLE)
            _add(bundle, "run_autograder", RUN_AUTOGRADER.encode(), EXECUTABLE)
            _add(bundle, "syncgrade.json", (json.dumps(config, indent=2) + "\n").encode(),
                 0o644)
            _add(bundle, f"wheels/{wheel.name}", exercise_only_wheel(wheel, exercise), 0o644)
            if course_dir is not None:
                for path in shipped_course_files(course_dir, exercise):
                    _add(bundle, f"course/{path.relative_to(course_dir).as_posix()}",
                         path.read_bytes(), 0o644)
    except zipfile.BadZipFile:
        raise UsageError(f"--wheel {wheel}: not a wheel file (not a zip archive)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return ["setup.sh", "run_autograder", "syncgrade.json", f"wheels/{wheel.name}",
            *(["course/"] if course_dir is not None else [])]


def shipped_course_files(course_dir: Path, exercise: str) -> list[Path]:
    """The files of ``course_dir`` a bundle for ``exercise`` carries, sorted: its
    ``course.toml`` and :data:`SHIPPED` of the exercise's folder (those that exist)."""
    candidates = [course_dir / "course.toml", *(course_dir / exercise / n for n in SHIPPED)]
    return sorted(p for p in candidates if p.is_file())


def _shipped_from_wheel(name: str, exercise: str) -> bool:
    """Whether the wheel entry ``name`` stays: everything but the built-in course's
    exercise folders, of which only ``exercise``'s :data:`SHIPPED` files stay."""
    if not name.startswith(WHEEL_COURSE):
        return True
    parts = name[len(WHEEL_COURSE):].split("/")
    if len(parts) == 1:
        return True  # course.toml
    return len(parts) == 2 and parts[0] == exercise and parts[1] in SHIPPED


def exercise_only_wheel(wheel: Path, exercise: str) -> bytes:
    """``wheel`` rewritten with only ``exercise`` of its built-in course (see
    :func:`_shipped_from_wheel`), its ``RECORD`` without the lines of what was left out,
    and every entry with :data:`TIMESTAMP` and its original mode: the same wheel gives
    the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(wheel) as source, \
            zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as rewritten:
        kept = [i for i in source.infolist()
                if not i.is_dir() and _shipped_from_wheel(i.filename, exercise)]
        names = {i.filename for i in kept}
        for info in kept:
            data = source.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode("utf-8").splitlines(keepends=True)
                data = "".join(line for line in lines
                               if line.split(",", 1)[0] in names).encode("utf-8")
            _add(rewritten, info.filename, data, (info.external_attr >> 16) & 0o777 or 0o644)
    return out.getvalue()


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=TIMESTAMP)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, wherever the zip is made: the modes are read as such
    bundle.writestr(info, data)


def source_tree() -> Path | None:
    """This syncgrade's source tree (the folder with its ``pyproject.toml``), or ``None``
    when it was installed from a wheel."""
    import syncgrade

    root = Path(syncgrade.__file__).resolve().parent.parent.parent
    project = root / "pyproject.toml"
    if project.is_file() and 'name = "syncgrade"' in project.read_text(encoding="utf-8"):
        return root
    return None


def build_wheel(workdir: Path) -> Path:
    """Build syncgrade's wheel from a copy of its source tree into ``workdir``."""
    root = source_tree()
    if root is None:
        raise UsageError("this syncgrade was installed from a wheel, so there is no source "
                         "tree to build one from: pass --wheel FILE")
    copy = workdir / "source"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (root / name).is_file():
            shutil.copy2(root / name, copy / name)
    shutil.copytree(root / "src", copy / "src", ignore=ignore)
    course = root / "exercises"  # the built-in course: pyproject.toml maps it into the wheel

    def shipped_only(folder: str, names: list[str]) -> set[str]:
        """Leave out all but what the wheel ships (never a solution, mutants, corpus or a
        learner's submission.py)."""
        if Path(folder) != course:  # an exercise folder
            return {name for name in names if name not in SHIPPED}
        return {name for name in names
                if name != "course.toml" and not (course / name).is_dir()}

    shutil.copytree(course, copy / "exercises", ignore=shipped_only)
    out = workdir / "wheel"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           str(copy), "-w", str(out)], capture_output=True, text=True,
                          timeout=600)
    wheels = sorted(out.glob("syncgrade-*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["no wheel came out"])[-1]
        raise UsageError(f"building the syncgrade wheel failed: {last}")
    return wheels[0]
