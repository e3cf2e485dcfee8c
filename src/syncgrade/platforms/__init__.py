"""Course platforms: result formats, per-check visibility and container entry points.

Pure adapters from a :class:`~syncgrade.models.GradeReport` to each platform's
``results.json`` as a plain ``dict`` (``json.dumps`` it)::

    from syncgrade.platforms import redact, to_exercism, to_gradescope, to_prairielearn

    to_gradescope(report)             # learner view: hidden checks redacted
    to_prairielearn(report, reveal=True)   # instructors: everything
    redact(report)                    # the learner view as a GradeReport, for API users

Entry points for the platforms' containers (:mod:`.entry`, the only module here that
prints or picks an exit code): ``python -m syncgrade.platforms.entry gradescope``
(``run_autograder``), ``python -m syncgrade.platforms.entry prairielearn`` and ``python -m
syncgrade.platforms.entry exercism SLUG INPUT_DIR OUTPUT_DIR`` (``bin/run.sh``). Each
adapter takes ``html=True`` for HTML outputs (Gradescope) or images (PrairieLearn).
docs/platforms.md has the field mappings, the status/cause table and the wiring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from syncgrade.platforms.visibility import redact, safe_hint

if TYPE_CHECKING:
    from syncgrade.platforms.exercism import to_exercism
    from syncgrade.platforms.gradescope import to_gradescope
    from syncgrade.platforms.prairielearn import to_prairielearn
    from syncgrade.platforms.registry import PLATFORMS, to_platform

__all__ = ["PLATFORMS", "redact", "safe_hint", "to_exercism", "to_gradescope",
           "to_platform", "to_prairielearn"]

# The adapters load on first use, not here: `python -m syncgrade.platforms.entry` must
# find its module not yet imported (runpy warns otherwise).
_LAZY = {"PLATFORMS": "registry", "to_platform": "registry", "to_exercism": "exercism",
         "to_gradescope": "gradescope", "to_prairielearn": "prairielearn"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(name)
