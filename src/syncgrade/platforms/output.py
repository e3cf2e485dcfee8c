"""One report as the text of any output format (``grade --format``, ``grade batch``).

Every format is the learner's view unless ``reveal``: hidden and ``after_due_date``
checks are redacted (:func:`~syncgrade.platforms.visibility.redact`), except that the
Gradescope adapter keeps ``after_due_date`` checks whole for Gradescope to withhold.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from syncgrade.limits import OUTPUT_FORMATS as OUTPUT_FORMATS
from syncgrade.models import GradeReport
from syncgrade.platforms.registry import PLATFORMS, to_platform
from syncgrade.platforms.visibility import redact

assert ("text", "json", *PLATFORMS) == OUTPUT_FORMATS, "syncgrade.limits.OUTPUT_FORMATS"


def format_report(report: GradeReport, fmt: str, *, reveal: bool = False,
                  source_lines: Sequence[str] | None = None, colour: bool = False,
                  indent: int | None = 2, html: bool = False) -> str:
    """``report`` in ``fmt`` (one of :data:`OUTPUT_FORMATS`), ending in a newline.
    ``indent=None`` gives one line of JSON (batch's JSON lines). ``html``: the platform
    formats' HTML (Gradescope) and images (PrairieLearn); other formats ignore it."""
    if fmt in PLATFORMS:
        results = to_platform(fmt, report, reveal=reveal, source_lines=source_lines,
                              html=html)
        return json.dumps(results, indent=indent, ensure_ascii=False) + "\n"
    view = report if reveal else redact(report)
    if fmt == "json":
        return view.model_dump_json(indent=indent) + "\n"
    if fmt == "text":
        from syncgrade.render import render

        return render(view, source_lines, colour=colour)
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(OUTPUT_FORMATS)})")
