"""The suite's order (tests/conftest.py, tests/order_support.py): the modules of the
slowest tests of tests/durations.txt first, and nothing else changed."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from order_support import DURATIONS, slowest_modules_first, slowest_tests

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Fake:
    nodeid: str


def test_every_listed_test_exists() -> None:
    """A renamed or moved test would drop out of the order unseen: each line names a
    test function of an existing test file."""
    listed = slowest_tests()
    assert len(listed) >= 20, DURATIONS
    for nodeid in listed:
        path, name = nodeid.split("::", 1)
        function = name.split("[", 1)[0]
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert function in defined, nodeid


def test_modules_of_the_slowest_tests_go_first_whole_and_in_their_own_order() -> None:
    items = [Fake(n) for n in ("a.py::one", "a.py::two", "b.py::one", "c.py::one",
                               "c.py::two[x]", "c.py::two[y]", "d.py::one")]
    listed = {"c.py::two[y]": 9.0, "b.py::one": 3.0, "a.py::two": 1.0, "gone.py::x": 50.0}
    ordered = slowest_modules_first(items, listed)
    assert [i.nodeid for i in ordered] == [
        "c.py::one", "c.py::two[x]", "c.py::two[y]", "b.py::one", "a.py::one",
        "a.py::two", "d.py::one"]
    assert slowest_modules_first(items, {}) == items  # nothing listed: collection order
