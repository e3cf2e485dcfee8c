"""The tests are laid out like the package (docs/architecture.md, "The tests"), and each
test file runs on its own: a test module imports helpers from the shared modules at the
top of tests/ or from a test module in its own folder, never from a test module in
another folder (that import works only when pytest happened to collect the other folder
first)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _imported_test_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return {name for name in found if name.startswith("test_")}


def test_no_test_module_imports_one_from_another_folder() -> None:
    crossing = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if "corpus" in path.relative_to(TESTS).parts:
            continue  # learner-style submissions, not tests
        for name in _imported_test_modules(path):
            if not (path.parent / f"{name}.py").is_file():
                crossing.append(f"{path.relative_to(TESTS)} imports {name}")
    assert crossing == []


def test_every_test_file_is_in_a_folder_of_its_part() -> None:
    assert not list(TESTS.glob("test_*.py")), "tests go in the folder of the part they test"
