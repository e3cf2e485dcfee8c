"""Tests use syncgrade's public API: no test imports or reads a name starting with `_`
(dunders aside) from a `syncgrade.*` module, except the uses listed in ALLOWED, each with
the reason it stays. A new private reach fails here; replace it with the public API, or
make the helper public (with a docstring) where it is part of the contract.

ALLOWED is a ratchet (issue 28): it lists the reaches that existed when this test was
added; remove an entry when its use goes away (test_allowlist_has_no_stale_entries fails
on a stale one). The grading stages' reaches went when the stages became public values
(syncgrade.grading.pipeline); the child's, the rubric's, the CLI's and the scaffold's
helpers the tests drive became public names with docstrings, and the sandbox exports its
run folder, tree removal and pipe pump (the fault-injection tests patch them). It is empty
now: keep it so."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


# (test file relative to tests/, dotted private name) -> why it stays.
ALLOWED: dict[tuple[str, str], str] = {}


def _syncgrade_names(tree: ast.Module) -> dict[str, str]:
    """Local names bound to syncgrade modules or objects -> their dotted names."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "syncgrade":
                for alias in node.names:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "syncgrade":
                    local = alias.asname or "syncgrade"
                    bound[local] = alias.name if alias.asname else "syncgrade"
    return bound


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(path: Path) -> set[str]:
    """The dotted private syncgrade names a test file imports or reads as attributes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound = _syncgrade_names(tree)
    found = {name for name in bound.values() if _is_private(name.rsplit(".", 1)[-1])}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _is_private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound):
            found.add(f"{bound[node.value.id]}.{node.attr}")
    return found


def _all_reaches() -> set[tuple[str, str]]:
    return {(path.relative_to(TESTS).as_posix(), name)
            for path in sorted(TESTS.rglob("*.py")) for name in private_reaches(path)}


def test_scanner_sees_imports_and_attributes(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text("from syncgrade.engine import _evaluate, grade\n"
                      "import syncgrade.sandbox as sb\n"
                      "from syncgrade import pool\n"
                      "sb._workdir; pool.__name__; pool._spare; grade._x\n", encoding="utf-8")
    assert private_reaches(sample) == {"syncgrade.engine._evaluate",
                                       "syncgrade.sandbox._workdir",
                                       "syncgrade.pool._spare",
                                       "syncgrade.engine.grade._x"}


def test_no_new_private_reach() -> None:
    new = sorted(_all_reaches() - ALLOWED.keys())
    assert not new, f"tests reach private syncgrade names (use the public API): {new}"


def test_allowlist_has_no_stale_entries() -> None:
    stale = sorted(ALLOWED.keys() - _all_reaches())
    assert not stale, f"remove these from ALLOWED, the tests no longer use them: {stale}"
