"""Only entry points print or pick exit codes (issue 18, docs/architecture.md).

The grading stages, the rubric, the renderers and the platform formats return values and
raise the errors of ``syncgrade.errors``; an entry point (the CLI, the service, the
platform containers, the child's and the zygote's own mains, the stdlib-only launcher)
decides what reaches a stream and which exit code the process ends with. This test reads
the source of every module and fails on a ``print``, a write to ``sys.stdout`` or
``sys.stderr``, ``sys.exit``/``os._exit``/``exit``/``quit`` or a ``SystemExit`` anywhere
else. ``import-linter`` checks who imports whom; this checks who talks to the terminal.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "syncgrade"

# Module paths (relative to the package) that are entry points: a folder ends with "/".
ENTRY_POINTS = (
    "cli/",                     # `grade` and its subcommands
    "service.py", "service/",   # `grade serve` (a module, or a package once it grows)
    "platforms/entry.py",       # syncgrade-gradescope / syncgrade-prairielearn / Exercism
    "child/__main__.py",        # the sandboxed child's own main: its stdout is the protocol
    "sandbox/_launcher.py",     # stdlib-only launcher: exits with the child's status
    "sandbox/_zygote_main.py",  # the zygote's main loop
)

STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}

# Functions outside the entry points that may name the streams, and why: they swap them,
# they never print or write. (module path, function name)
STREAM_SWAPPERS = {
    # The learner's streams become recording stand-ins (a print inside a timed interval
    # is recorded, issue 25); restored on undo.
    ("child/instrument.py", "_install_streams"),
}
EXITS = {"exit", "_exit", "quit"}


def _is_entry_point(relative: str) -> bool:
    return any(relative == e or (e.endswith("/") and relative.startswith(e))
               for e in ENTRY_POINTS)


def _offences(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) for each print, stream write, exit or SystemExit in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in {"print", *EXITS}:
                yield node.lineno, f"{func.id}()"
            elif isinstance(func, ast.Attribute) and func.attr in EXITS \
                    and isinstance(func.value, ast.Name) and func.value.id in {"sys", "os"}:
                yield node.lineno, f"{func.value.id}.{func.attr}()"
        elif isinstance(node, ast.Attribute) and node.attr in STREAMS \
                and isinstance(node.value, ast.Name) and node.value.id == "sys":
            yield node.lineno, f"sys.{node.attr}"
        elif isinstance(node, ast.Name) and node.id == "SystemExit" \
                and isinstance(node.ctx, ast.Load):
            yield node.lineno, "SystemExit"


def _engine_modules() -> list[Path]:
    modules = [p for p in sorted(PACKAGE.rglob("*.py"))
               if "course" not in p.relative_to(PACKAGE).parts[:1]]
    return [p for p in modules
            if not _is_entry_point(p.relative_to(PACKAGE).as_posix())]


def test_the_scan_finds_what_it_forbids() -> None:
    source = ("import sys, os\nprint(1)\nsys.stdout.write('x')\nsys.exit(2)\nos._exit(3)\n"
              "raise SystemExit(4)\nexit()\n")
    assert [what for _, what in sorted(_offences(ast.parse(source)))] == \
        ["print()", "sys.stdout", "sys.exit()", "os._exit()", "SystemExit", "exit()"]


def test_the_stream_swappers_named_here_exist() -> None:
    for relative, name in STREAM_SWAPPERS:
        tree = ast.parse((PACKAGE / relative).read_text())
        assert _swapping_lines(tree, relative), f"{relative}: no function {name}"


def test_the_entry_points_named_here_exist() -> None:
    for entry in ENTRY_POINTS:
        if entry in ("service.py", "service/"):
            continue  # one of the two forms exists
        assert (PACKAGE / entry).exists(), entry
    assert (PACKAGE / "service.py").exists() or (PACKAGE / "service").is_dir()


def _swapping_lines(tree: ast.AST, relative: str) -> set[int]:
    """The lines of the functions of ``relative`` that :data:`STREAM_SWAPPERS` names."""
    return {line for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and (relative, node.name) in STREAM_SWAPPERS
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}


@pytest.mark.parametrize("module", _engine_modules(),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_only_entry_points_print_or_exit(module: Path) -> None:
    tree = ast.parse(module.read_text(), filename=str(module))
    swapping = _swapping_lines(tree, module.relative_to(PACKAGE).as_posix())
    offences = [f"line {line}: {what}" for line, what in _offences(tree)
                if not (line in swapping and what.startswith("sys."))]
    assert not offences, (
        f"{module.relative_to(PACKAGE)} is not an entry point but uses "
        + ", ".join(offences) + ": return a value or raise a syncgrade.errors error, and "
        "let the entry point print and pick the exit code")
