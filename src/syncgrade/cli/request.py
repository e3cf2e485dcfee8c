"""What one CLI grade is and what comes back (``grade EXERCISE``, ``grade watch``, the
grader daemon's client): shared by :mod:`syncgrade.cli.grade` and
:mod:`syncgrade.cli.daemon`, which import it and not each other."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple, TextIO

from syncgrade.cli.common import EXIT_FULL_MARKS, EXIT_INTERNAL, EXIT_NOT_FULL
from syncgrade.limits import DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT_S, GIB


class Request(NamedTuple):
    """One grade the CLI makes (``grade EXERCISE``, ``grade watch``): what to grade, the
    limits, and how to render it (``terminal``: the text goes to a terminal, so it may be
    coloured and fitted to its width). A named tuple, not a dataclass: ``dataclasses``
    would add its imports to every ``grade`` through the daemon."""

    exercise: str
    path: Path
    course: str | None
    fmt: str = "text"
    timeout: float = DEFAULT_TIMEOUT_S
    memory_bytes: int = int(DEFAULT_MEMORY_GIB * GIB)
    reveal: bool = False
    passing: bool = False
    html: bool = False
    terminal: bool = True
    use_daemon: bool = True


class Graded(NamedTuple):
    """A grade made and rendered: the text, its verdict, and a note for stderr (a
    progress record that could not be read or written), or ``""``."""

    text: str
    exercise: str
    status: str
    score: float
    max_score: float
    internal_error: bool
    via_daemon: bool
    note: str = ""

    @property
    def exit_code(self) -> int:
        if self.internal_error:
            return EXIT_INTERNAL
        return EXIT_FULL_MARKS if self.status == "passed" else EXIT_NOT_FULL


def use_colour(stream: TextIO) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (https://no-color.org); the rule
    of :func:`syncgrade.render.use_colour`, without importing the renderer."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()
