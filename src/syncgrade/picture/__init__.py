"""Pictures of a grade report: what each timed interval contained, drawn.

A leaf package: it reads a :class:`~syncgrade.models.GradeReport` (and the evidence in it)
and returns text (SVG, HTML); it imports only :mod:`syncgrade.models` and the standard
library, so any front end (the CLI, a notebook, a platform adapter) can use it.

- :func:`~syncgrade.picture.svg.interval_svg`: one interval as an SVG, with lanes for the
  host, the device and the measurement, the flaw marked, the text timeline as its
  accessible description;
- :func:`~syncgrade.picture.answer.answer_svg`: a concept answer (exercise-2) beside the
  snippet it is about, the lines between its clock reads marked;
- :func:`~syncgrade.picture.svg.distributions_svg`: sample lists (exercise-7's first-call
  and warm samples) side by side on one axis;
- :func:`~syncgrade.picture.html.render_html`: a whole report as one self-contained HTML
  file; :func:`~syncgrade.picture.html.render_fragment`: the same as a fragment for a
  notebook (``GradeReport._repr_html_``).

The text timeline stays the source of truth: each picture carries it as its description.
"""

from __future__ import annotations

from syncgrade.picture.answer import answer_svg
from syncgrade.picture.html import render_fragment, render_html
from syncgrade.picture.svg import distributions_svg, interval_svg
from syncgrade.picture.text import timeline_text

__all__ = ["answer_svg", "distributions_svg", "interval_svg", "render_fragment", "render_html",
           "timeline_text"]
