"""A whole grade report as HTML: one self-contained file, or a fragment for a notebook.

Everything is inline (CSS, SVG); nothing is fetched from the network. Light and dark follow
the reader's ``prefers-color-scheme``; ``@media print`` prints it on white, every picture
whole. Each failing check that carries an interval shows its picture (and, with
``passing=True``, each passing one that does), with the text timeline as the picture's
accessible description and, below it, as text anyone can read or copy. A check carrying the
learner's sample lists (exercise-7's ``summary-stats``) shows them on one axis.

The report is rendered as given: a learner-facing caller redacts hidden checks first
(:func:`syncgrade.platforms.visibility.redact`), as it does for any other format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from syncgrade.models import CheckResult, GradeReport, register_html_renderer
from syncgrade.picture.answer import ANSWER_STYLE, answer_svg
from syncgrade.picture.svg import STYLE, distributions_svg, interval_svg, safe_id
from syncgrade.picture.text import timeline_text

PAGE_STYLE = """
.sg-report{--sg-fg:#1f2328;--sg-bg:#ffffff;--sg-muted:#57606a;--sg-card:#f6f8fa;
--sg-border:#d0d7de;--sg-pass:#1a7f37;--sg-fail:#c4122f;--sg-skip:#9a6700;
color:var(--sg-fg);background:var(--sg-bg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
max-width:70rem;margin:0 auto;padding:1.25rem}
@media (prefers-color-scheme:dark){.sg-report{--sg-fg:#e6edf3;--sg-bg:#0d1117;
--sg-muted:#9da7b3;--sg-card:#161b22;--sg-border:#30363d;--sg-pass:#3fb950;
--sg-fail:#ff7b72;--sg-skip:#d29922}}
.sg-report h1{font-size:1.45rem;margin:0 0 .25rem}
.sg-report h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.sg-report code,.sg-report pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,
monospace;font-size:.88em}
.sg-report .sg-file{color:var(--sg-muted);margin:0}
.sg-report .sg-verdict{font-size:1.15rem;font-weight:650;margin:.75rem 0 .25rem}
.sg-report .sg-verdict.sg-passed{color:var(--sg-pass)}
.sg-report .sg-verdict.sg-failed,.sg-report .sg-verdict.sg-error{color:var(--sg-fail)}
.sg-report .sg-kind{margin:.25rem 0}
.sg-report ol.sg-checks{list-style:none;padding:0;margin:0}
.sg-report .sg-check{border:1px solid var(--sg-border);border-radius:8px;
background:var(--sg-card);padding:.6rem .9rem;margin:.5rem 0}
.sg-report .sg-check-head{display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}
.sg-report .sg-mark{font-weight:700;width:1.2em;display:inline-block}
.sg-report .sg-check.sg-passed .sg-mark{color:var(--sg-pass)}
.sg-report .sg-check.sg-failed .sg-mark{color:var(--sg-fail)}
.sg-report .sg-check.sg-skipped .sg-mark{color:var(--sg-skip)}
.sg-report .sg-check-title{font-weight:600}
.sg-report .sg-id{color:var(--sg-muted)}
.sg-report .sg-points{margin-left:auto;color:var(--sg-muted)}
.sg-report .sg-message{margin:.35rem 0 0}
.sg-report .sg-hint{margin:.35rem 0 0}
.sg-report .sg-hint::before{content:"→ ";font-weight:700}
.sg-report figure{margin:.75rem 0 .25rem}
.sg-report .sg-scroll{overflow-x:auto;background:var(--sg-bg);border-radius:6px;
border:1px solid var(--sg-border)}
.sg-report .sg-scroll svg{display:block;max-width:100%;height:auto}
.sg-report figcaption{color:var(--sg-muted);font-size:.9em;margin-top:.3rem}
.sg-report pre.sg-timeline{white-space:pre;overflow-x:auto;background:var(--sg-bg);
border:1px solid var(--sg-border);border-radius:6px;padding:.5rem .75rem;margin:.35rem 0}
.sg-report .sg-same{color:var(--sg-muted);font-style:italic;margin:.35rem 0 0}
.sg-report footer{color:var(--sg-muted);font-size:.85em;margin-top:1.5rem}
.sg-report details summary{cursor:pointer;color:var(--sg-muted)}
@media print{.sg-report{--sg-fg:#000;--sg-bg:#fff;--sg-muted:#333;--sg-card:#fff;
--sg-border:#999;--sg-pass:#0a5c22;--sg-fail:#a00018;--sg-skip:#6b4700;max-width:none;
padding:0;font-size:11pt}
.sg-report .sg-check{break-inside:avoid}
.sg-report figure{break-inside:avoid}
.sg-report .sg-scroll{overflow:visible;border:none}
.sg-report .sg-scroll svg{max-width:100%;height:auto}
.sg-report details>summary{display:none}
.sg-report pre.sg-timeline{white-space:pre-wrap}}
"""

MARKS = {"passed": "✓", "failed": "✗", "skipped": "-"}
WORDS = {"passed": "passed", "failed": "not yet", "skipped": "not checked"}


def _e(text: object) -> str:
    return escape(str(text), quote=True)


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline_html(text: str) -> str:
    """Plain report text as escaped HTML, its `code` spans as ``<code>`` elements (never
    literal backticks)."""
    return _CODE_SPAN.sub(r"<code>\1</code>", _e(text))


def seconds_words(report: GradeReport, *, warm: bool = False) -> str:
    """What ``grading.seconds`` measures, in words every view uses: the grade's own wall
    time. A cold ``grade`` waits for its own start-up besides (the interpreter, the
    grader and jax); a ``warm`` grade (the grader daemon's, which ``grade watch`` and a
    repeat ``grade`` use) had all of that done before it was asked, so its seconds are
    nearly all the learner waited."""
    if warm:
        return f"graded in {report.grading.seconds:.1f} s by the warm grader"
    return f"graded in {report.grading.seconds:.1f} s + start-up"


STDOUT_LINES = 20
STDOUT_CHARS = 1500
"""How much of the learner's own output a report shows (the report keeps more)."""


def stdout_excerpt(report: GradeReport) -> tuple[str, bool]:
    """(the first lines of what the learner's code printed, whether that was cut): at most
    :data:`STDOUT_LINES` lines and :data:`STDOUT_CHARS` characters. Cut also when the
    report's own excerpt was. ``("", False)`` when it printed nothing, and after a grader
    fault (its output is not the learner's business then)."""
    text = report.stdout.text
    if report.status == "error" or not text.strip():
        return "", False
    lines = text.rstrip("\n").splitlines()
    shown = "\n".join(lines[:STDOUT_LINES])
    cut = len(lines) > STDOUT_LINES or report.stdout.truncated
    if len(shown) > STDOUT_CHARS:
        shown, cut = shown[:STDOUT_CHARS].rstrip(), True
    return shown, cut


def kind_words(report: GradeReport) -> tuple[str, str]:
    """(the verdict, a short kind sentence) for the top of the report."""
    score = f"{report.score:g} of {report.max_score:g} points"
    if report.status == "passed":
        return (f"Full marks: {score}",
                "Every check passed: your timer measured what the exercise asks for.")
    if report.status == "error":
        return ("The grader itself failed",
                "This is not about your code: nothing was judged. Try again, and report it "
                "if it happens again.")
    # The summary (shown next) says which checks failed: this sentence never repeats it.
    pictured = any(c.status == "failed" and c.evidence.interval for c in report.checks)
    sentence = "Each check below says what it saw and what to try."
    if pictured:
        sentence += (" The pictures show what your timer measured, from your own run: the "
                     "red mark is where the interval goes wrong.")
    return f"Not yet: {score}", sentence


def render_fragment(report: GradeReport, *, passing: bool = False,
                    source_lines: Sequence[str] | None = None, warm: bool = False) -> str:
    """The report as one ``<div>`` with its own ``<style>``: for a notebook's output
    (``GradeReport._repr_html_``) or to embed in a page. ``passing``: also draw the
    pictures of passing checks that carry one. ``source_lines``: the submission's lines,
    to quote the learner's code in the text timelines. ``warm``: graded by the grader
    daemon (:func:`seconds_words`)."""
    verdict, sentence = kind_words(report)
    out = [f'<div class="sg-report" data-exercise="{_e(report.exercise)}" '
           f'data-status="{_e(report.status)}">',
           f"<style>{PAGE_STYLE}{STYLE}{ANSWER_STYLE}</style>",
           "<header>",
           f"<h1>{_e(report.exercise)} · {_e(report.title)}</h1>",
           f'<p class="sg-file">{_e(report.submission)}</p>',
           f'<p class="sg-verdict sg-{_e(report.status)}">{_e(verdict)}</p>',
           f'<p class="sg-summary">{inline_html(report.summary)}</p>',
           f'<p class="sg-kind">{_e(sentence)}</p>']
    if report.grading.internal_error:
        out.append(f'<p class="sg-error-detail">{_e(report.grading.internal_error)}</p>')
    out += ["</header>", '<section aria-labelledby="sg-checks-heading">',
            '<h2 id="sg-checks-heading">Checks</h2>', '<ol class="sg-checks">']
    shown: dict[str, str] = {}
    home = samples_home(report)
    samples = next((c.evidence.samples for c in report.checks if c.evidence.samples), None)
    for check in report.checks:
        out.append(_check(check, passing, source_lines, shown,
                          samples if check.id == home else None))
    out += ["</ol>", "</section>"]
    printed, cut = stdout_excerpt(report)
    if printed:
        more = " (truncated)" if cut else ""
        out.append(f'<section class="sg-stdout"><details><summary>What your code printed'
                   f'{more}</summary><pre class="sg-timeline">{_e(printed)}'
                   f'{chr(10) + "…" if cut else ""}</pre></details></section>')
    if report.status != "passed" and report.stderr.text.strip():
        tail = "\n".join(report.stderr.text.strip().splitlines()[-12:])
        out.append("<section><details><summary>Last lines your code wrote to stderr"
                   f'</summary><pre class="sg-timeline">{_e(tail)}</pre></details></section>')
    prov = report.provenance
    facts = [seconds_words(report, warm=warm), f"syncgrade {prov.syncgrade_version}",
             f"rubric {prov.rubric_version}"]
    if prov.jax_version:
        facts.append(f"jax {prov.jax_version}")
    if prov.backend:
        facts.append(f"{prov.backend} ({prov.device or 'device'})")
    out.append(f"<footer>{_e(' · '.join(facts))}</footer>")
    out.append("</div>")
    return "\n".join(out)


def render_html(report: GradeReport, *, passing: bool = False,
                source_lines: Sequence[str] | None = None, warm: bool = False) -> str:
    """The report as one self-contained HTML document (see :func:`render_fragment`)."""
    title = f"{report.exercise} · {report.title} · syncgrade"
    return "\n".join([
        "<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>{_e(title)}</title>",
        "<style>html,body{margin:0}body{background:#fff}@media (prefers-color-scheme:dark)"
        "{body{background:#0d1117}}@media print{body{background:#fff}}</style>",
        "</head>", "<body>", "<main>",
        render_fragment(report, passing=passing, source_lines=source_lines, warm=warm),
        "</main>", "</body>", "</html>", ""])


SAMPLES_BELONG_WITH = "first-call-includes-compile"
"""The check whose failure the sample distributions explain: a first call that did not
compile sits among the warm samples instead of far to their right."""


def samples_home(report: GradeReport) -> str | None:
    """The id of the check under which the report's sample distributions are drawn (once):
    :data:`SAMPLES_BELONG_WITH` when it failed, else the check that carries the samples
    (exercise-7's ``summary-stats``); ``None`` when no check carries any."""
    carrier = next((c.id for c in report.checks if c.evidence.samples), None)
    if carrier is None:
        return None
    failed = any(c.id == SAMPLES_BELONG_WITH and c.status == "failed" for c in report.checks)
    return SAMPLES_BELONG_WITH if failed else carrier


def _check(check: CheckResult, passing: bool, source_lines: Sequence[str] | None,
           shown: dict[str, str], samples: dict[str, list[float]] | None) -> str:
    ident = safe_id(f"check-{check.id}")
    out = [f'<li class="sg-check sg-{_e(check.status)}" id="{ident}" '
           f'data-check="{_e(check.id)}" data-status="{_e(check.status)}">',
           '<div class="sg-check-head">',
           f'<span class="sg-mark" role="img" aria-label="{_e(WORDS[check.status])}">'
           f"{MARKS[check.status]}</span>",
           f'<span class="sg-check-title">{_e(check.title)}</span>',
           f'<code class="sg-id">{_e(check.id)}</code>',
           f'<span class="sg-points">{check.points:g}/{check.max_points:g}</span>',
           "</div>", f'<p class="sg-message">{inline_html(check.message)}</p>']
    if check.status == "failed" and check.hint:
        out.append(f'<p class="sg-hint">{inline_html(check.hint)}</p>')
    evidence = check.evidence
    draw = evidence.interval is not None and (check.status == "failed" or passing)
    if draw and evidence.interval is not None:
        key = evidence.interval.model_dump_json()
        # A failed check draws where the report decided (``same_interval_as``); a passing
        # one, drawn on request, once per interval on this page.
        same = check.same_interval_as if check.status == "failed" else shown.get(key)
        if same:
            out.append(f'<p class="sg-same">What your timer measured: the same interval as '
                       f'under <a href="#{safe_id("check-" + same)}">'
                       f"<code>{_e(same)}</code></a> above.</p>")
        else:
            shown[key] = check.id
            text = (timeline_text(evidence.timeline, source_lines)
                    if evidence.timeline is not None else "")
            svg = interval_svg(evidence.interval, evidence.timeline, ident=f"{ident}-interval",
                               source_lines=source_lines, style=False)
            out.append(_figure(svg, "The picture is drawn from your own run. The same "
                               "interval as text:", text))
    if evidence.answer is not None and (check.status == "failed" or passing):
        svg = answer_svg(evidence.answer, ident=f"{ident}-answer", style=False)
        out.append(_figure(svg, "Your answer beside the snippet's own lines: the shaded "
                           "lines run between the two clock reads.", ""))
    if samples:
        svg = distributions_svg(samples, ident=f"{ident}-samples", style=False)
        out.append(_figure(svg, "Your own samples, as you reported them, on one axis; each "
                           "dot is one sample, the bar is its list's median.", ""))
    out.append("</li>")
    return "\n".join(out)


def _figure(svg: str, caption: str, text: str) -> str:
    body = [f'<figure class="sg-figure"><div class="sg-scroll">{svg}</div>',
            f"<figcaption>{_e(caption)}"]
    if text:
        body.append(f'<pre class="sg-timeline">{_e(text)}</pre>')
    body.append("</figcaption></figure>")
    return "".join(body)


register_html_renderer(render_fragment)  # GradeReport._repr_html_ draws with this
