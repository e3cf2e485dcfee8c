"""Fixtures for the sandbox tests (helpers live in ``sandbox_support``)."""

from __future__ import annotations

from typing import Any

import pytest
from sandbox_support import Runner, run_main

from syncgrade.sandbox import SandboxOutcome


@pytest.fixture(params=["auto", "basic"])
def isolation(request: pytest.FixtureRequest) -> str:
    """Run a test both in the best available mode and in the fallback mode."""
    return str(request.param)


@pytest.fixture
def run(isolation: str) -> Runner:
    """``run(source, **kw)``: run ``source`` as ``main.py`` in the sandbox."""

    def runner(source: str, **kwargs: Any) -> SandboxOutcome:
        return run_main(source, isolation=isolation, **kwargs)

    return runner


@pytest.fixture
def run_auto() -> Runner:
    """Like ``run`` but only in the best available mode (for single-mode behaviours)."""

    def runner(source: str, **kwargs: Any) -> SandboxOutcome:
        return run_main(source, isolation="auto", **kwargs)

    return runner
