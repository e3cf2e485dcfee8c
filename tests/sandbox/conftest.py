"""Fixtures for the sandbox tests (helpers live in ``sandbox_support``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sandbox_support import MAIN_MODULE_ARGV, ZYGOTE_ENV, Runner, namespaces_possible, run_main

from syncgrade.sandbox import Isolation, SandboxOutcome, Zygote

MODES: dict[str, tuple[Isolation, bool]] = {
    "auto": ("auto", False), "basic": ("basic", False), "zygote": ("auto", True),
}
"""Test mode -> (isolation asked for, forked from the session's zygote). A zygote's runs
always use namespace isolation, so there is no basic-zygote mode."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that runs a child runs it in each mode it applies to: fresh through the
    launcher ("auto", "basic") and forked from a zygote ("zygote"), which must be
    sandboxed exactly as well. A zygote's runs need the namespace jail, which these tests
    count on only as root on Linux (``namespaces_possible``, as test_sandbox_zygote.py
    does); elsewhere there is no zygote mode."""
    names = metafunc.fixturenames
    zygote = ["zygote"] if namespaces_possible() else []
    if "run" in names:
        metafunc.parametrize("mode", ["auto", "basic", *zygote])
    elif "run_auto" in names:
        metafunc.parametrize("mode", ["auto", *zygote])
    elif "isolation" in names:
        metafunc.parametrize("mode", ["auto", "basic"])


@pytest.fixture
def isolation(mode: str) -> Isolation:
    """The isolation the test's runs ask for."""
    return MODES[mode][0]


@pytest.fixture(scope="session")
def main_zygote() -> Iterator[Zygote]:
    """One zygote for the session serving ``python -m main`` (preloading only ``json``:
    these tests are about the sandbox, not jax)."""
    with Zygote(MAIN_MODULE_ARGV, ZYGOTE_ENV, preload=("json",)) as z:
        z.start()
        yield z


@pytest.fixture
def via(mode: str, request: pytest.FixtureRequest) -> Zygote | None:
    """The zygote to fork the test's runs from, in "zygote" mode."""
    return request.getfixturevalue("main_zygote") if MODES[mode][1] else None


@pytest.fixture
def run(isolation: Isolation, via: Zygote | None) -> Runner:
    """``run(source, **kw)``: run ``source`` as ``main.py`` in the sandbox."""

    def runner(source: str, **kwargs: Any) -> SandboxOutcome:
        return run_main(source, isolation=isolation, zygote=via, **kwargs)

    return runner


@pytest.fixture
def run_auto(via: Zygote | None) -> Runner:
    """Like ``run`` but only in the best available mode (for single-mode behaviours)."""

    def runner(source: str, **kwargs: Any) -> SandboxOutcome:
        return run_main(source, isolation="auto", zygote=via, **kwargs)

    return runner
