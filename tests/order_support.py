"""The order the suite runs in (tests/conftest.py): the modules of its slowest tests,
listed in ``tests/durations.txt``, first."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, TypeVar

DURATIONS = Path(__file__).resolve().parent / "durations.txt"


class Item(Protocol):
    """What the ordering reads of a collected test (a :class:`pytest.Item`)."""

    @property
    def nodeid(self) -> str: ...


def slowest_tests(path: Path = DURATIONS) -> dict[str, float]:
    """``nodeid -> seconds`` of the listed slow tests (``seconds nodeid`` lines; ``#``
    comments)."""
    listed = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            seconds, nodeid = line.split(maxsplit=1)
            listed[nodeid] = float(seconds)
    return listed


T = TypeVar("T", bound=Item)


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def slowest_modules_first(items: list[T], listed: dict[str, float]) -> list[T]:
    """``items`` with the modules of the longest listed tests first: ordered by their
    slowest listed test, longest first; a module stays whole and in its own order (its
    module-scoped fixtures are made once, and a test may rely on an earlier one's
    state); modules with no listed test keep their order, after the others. Only the
    order changes: the same items, each once."""
    slowest: dict[str, float] = {}
    for item in items:
        module = module_of(item.nodeid)
        slowest[module] = max(slowest.get(module, 0.0), listed.get(item.nodeid, 0.0))
    return sorted(items, key=lambda item: -slowest[module_of(item.nodeid)])
