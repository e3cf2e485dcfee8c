"""The platform adapters by format name (``grade --format``, ``grade batch --format``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from syncgrade.models import GradeReport
from syncgrade.platforms.exercism import to_exercism
from syncgrade.platforms.gradescope import to_gradescope
from syncgrade.platforms.prairielearn import to_prairielearn

Adapter = Callable[..., dict[str, Any]]

PLATFORMS: dict[str, Adapter] = {
    "gradescope": to_gradescope,
    "prairielearn": to_prairielearn,
    "exercism": to_exercism,
}


def to_platform(platform: str, report: GradeReport, *, reveal: bool = False,
                source_lines: Sequence[str] | None = None, html: bool = False) -> dict[str, Any]:
    """``report`` in ``platform``'s result format (a key of :data:`PLATFORMS`). ``html``:
    Gradescope's outputs as HTML with pictures, PrairieLearn's tests with images; Exercism
    stays text."""
    return PLATFORMS[platform](report, reveal=reveal, source_lines=source_lines, html=html)
