"""HTML and image pieces of the platform formats: a check as an HTML fragment with its
picture (Gradescope ``output_format: "html"``), and a picture as an image for PrairieLearn's
``images``.

The pictures are :mod:`syncgrade.picture`'s SVGs of a failing check's interval, the same
ones the HTML report draws; each comes with its text timeline, so a platform that strips
SVG still shows what the timer measured. Every piece of text is HTML-escaped here (check
messages quote the learner's file name and lines); the SVGs escape their own text.
A leaf, like the adapters: it imports the models and the pictures, nothing above.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape

from syncgrade.models import CheckResult
from syncgrade.picture.html import inline_html
from syncgrade.picture.svg import distributions_svg, interval_svg, safe_id
from syncgrade.picture.text import timeline_text

SVG_MIME = "image/svg+xml"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def paragraphs(text: str, cls: str = "") -> str:
    """Plain text as escaped HTML: one ``<p>`` per paragraph, line breaks kept, `code`
    spans as ``<code>``."""
    attr = f' class="{_e(cls)}"' if cls else ""
    return "".join(f"<p{attr}>" + "<br>".join(inline_html(line) for line in block.splitlines())
                   + "</p>" for block in text.split("\n\n") if block.strip())


def preformatted(text: str) -> str:
    """Plain text as an escaped ``<pre>`` block (empty text: nothing)."""
    return f"<pre>{_e(text)}</pre>" if text else ""


def check_pictures(check: CheckResult, source_lines: Sequence[str] | None = None, *,
                   style: bool = True) -> list[tuple[str, str]]:
    """(label, SVG) for each picture a *failed* check carries: its interval (unless an
    earlier check draws it: ``same_interval_as``), and its sample lists. Passed, skipped
    and redacted checks (no evidence) have none."""
    if check.status != "failed":
        return []
    evidence = check.evidence
    ident = safe_id(f"check-{check.id}")
    found: list[tuple[str, str]] = []
    if evidence.interval is not None and check.same_interval_as is None:
        found.append((f"{check.id}: what your timer measured",
                      interval_svg(evidence.interval, evidence.timeline,
                                   ident=f"{ident}-interval", source_lines=source_lines,
                                   style=style)))
    if evidence.samples:
        found.append((f"{check.id}: your samples",
                      distributions_svg(evidence.samples, ident=f"{ident}-samples",
                                        style=style)))
    return found


def check_html(check: CheckResult, source_lines: Sequence[str] | None = None) -> str:
    """One check as an HTML fragment: its message, for a failure its hint, its pictures
    and the text timeline of its interval (the picture's words, readable where SVG is not
    shown). Self-contained: each picture's SVG holds its own stylesheet, so a platform that
    keeps the SVG but drops the page's ``<style>`` still draws it in colour."""
    out = [paragraphs(check.message)]
    if check.status == "failed" and check.hint:
        out.append(paragraphs("→ " + check.hint))
    for label, svg in check_pictures(check, source_lines):
        out.append(f'<figure><div style="overflow-x:auto">{svg}</div>'
                   f"<figcaption>{_e(label)}</figcaption></figure>")
    timeline = check.evidence.timeline
    if check.status == "failed" and timeline is not None and check.same_interval_as:
        out.append(paragraphs(f"What your timer measured: the same interval as under "
                              f"{check.same_interval_as} above."))
    elif check.status == "failed" and timeline is not None:
        out.append(preformatted(timeline_text(timeline, source_lines)))
    return "\n".join(part for part in out if part)


def data_url(svg: str) -> str:
    """An SVG as a ``data:`` URL (base64), for an ``<img>``-style image field."""
    return f"data:{SVG_MIME};base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
