"""A real browser: headless Chromium (Debian's ``chromium``, installed by .ci/run; never a
downloaded browser) driven by Playwright opens the HTML report the CLI writes (``grade
EXERCISE --format html --out FILE``, run as a learner runs it, from a folder made by
``grade start``) for the exercise-1 stub, the exercise-8 stub and the exercise-7 solution,
and the test asserts on what is drawn: the lanes and where they are, the flaw mark at the
stop, the work running past it, the labels, the two sample rows on one axis, the text
alternative in the accessibility tree and the DOM; and, measured by the browser's own
fonts, that exercise-8's picture fits a 1200-pixel window, that no label overlaps its
neighbour or leaves its picture, and that its compile comes before the call and the
call before its device work.

Screenshots go to the test's temporary folder; with ``SYNCGRADE_SCREENSHOTS=1`` also to
docs/images/ (the README shows them), so a plain test run leaves the checkout unchanged.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from syncgrade.courses import open_course

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
STILL = "the timed work was still running when the timer stopped"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def _grade(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "syncgrade.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _report_file(tmp: Path, exercise: str, which: str) -> Path:
    """The CLI's HTML report of the exercise's stub (as `grade start` hands it out) or of
    its solution (pasted over the stub), graded from the learner's folder."""
    work = tmp / f"{exercise}-{which}"
    work.mkdir()
    assert _grade("start", exercise, cwd=work).returncode == 0
    submission = work / "exercises" / exercise / "submission.py"
    if which == "solution":
        submission.write_bytes(open_course().folder(exercise).solution.read_bytes())
    page = work / "report.html"
    done = _grade(exercise, "--format", "html", "--out", str(page), cwd=work)
    assert done.returncode == (0 if which == "solution" else 1), done.stderr
    assert done.stdout == "" and page.read_text(encoding="utf-8").startswith("<!doctype")
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("html")
    return {"stub": _report_file(tmp, "exercise-1", "stub"),
            "eight": _report_file(tmp, "exercise-8", "stub"),
            "seven": _report_file(tmp, "exercise-7", "solution")}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def _open(browser: Any, path: Path, scheme: str = "light",
          width: int = 1100) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    return page, requests


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, "not drawn"
    return dict(box)


def _save(locator: Any, name: str, tmp_path: Path, publish: bool = True) -> None:
    target = tmp_path / name
    locator.screenshot(path=str(target))
    assert target.stat().st_size > 5_000
    if publish and os.environ.get("SYNCGRADE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target, IMAGES / name)


def test_the_stub_interval_is_drawn(browser: Any, pages: dict[str, Path],
                                    tmp_path: Path) -> None:
    page, requests = _open(browser, pages["stub"])
    expect = sync_api.expect
    expect(page.locator(".sg-file")).to_have_text("exercises/exercise-1/submission.py")
    check = page.locator('[data-check="sync-before-stop"]')
    picture = check.get_by_role("img", name=re.compile("What your timer measured"))
    expect(picture).to_be_visible()
    expect(picture).to_have_accessible_description(re.compile(re.escape(STILL)))
    expect(picture).to_have_accessible_description(re.compile(r"line \d+ +call"))

    # Three lanes, top to bottom, each saying how its events are placed.
    lanes = [picture.locator(f'g.sg-lane[data-lane="{name}"]')
             for name in ("host", "device", "measured")]
    tops = [_box(lane.locator("rect.sg-band"))["y"] for lane in lanes]
    assert tops == sorted(tops) and len(set(tops)) == 3
    expect(lanes[0]).to_contain_text("ordering only")
    expect(lanes[1]).to_contain_text("ordering only")
    expect(lanes[2]).to_contain_text("to scale")

    # The host events, in order, with the learner's lines.
    labels = picture.locator("g.sg-event text.sg-event-label")
    expect(labels).to_have_text(["timer start", "call", "timer stop"])
    xs = [_box(picture.locator(f'g.sg-event[data-index="{i}"]'))["x"] for i in range(3)]
    assert xs == sorted(xs)
    expect(picture.locator("g.sg-event text.sg-event-line").nth(1)).to_have_text(
        re.compile(r"line \d+"))

    # The work runs past the stop, drawn as still running; the flaw is marked at the stop.
    work = picture.locator('g.sg-device-work[data-state="still running at the stop"]')
    expect(work).to_be_visible()
    expect(work.locator("text.sg-still-running")).to_have_text("still running at the stop")
    stop = _box(picture.locator('g.sg-event[data-kind="timer stop"] rect'))
    stop_x = stop["x"] + stop["width"] / 2
    bar = _box(work.locator("rect").first)
    fade = _box(work.locator("rect").nth(1))
    assert bar["x"] < stop_x <= fade["x"] + 1 and fade["x"] + fade["width"] > stop_x + 20
    flaw = picture.locator("g.sg-flaw")
    expect(flaw).to_have_count(1)
    expect(flaw.locator("text")).to_contain_text(STILL)
    ring = _box(flaw.locator("circle"))
    assert abs(ring["x"] + ring["width"] / 2 - stop_x) < 2

    # The measured interval, to scale between the two reads.
    expect(picture.locator("text.sg-measured-label")).to_have_text(re.compile(r"measured \d"))

    # The text alternative, for everyone, in the DOM.
    text = check.locator("pre.sg-timeline")
    expect(text).to_contain_text(STILL)
    expect(text).to_contain_text("out = fn(*args)")
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests
    _save(check.locator("figure"), "exercise-1-stub-interval.png", tmp_path)

    # Dark and print: the colours follow the reader, the print is on white.
    light = page.evaluate("getComputedStyle(document.querySelector('.sg-report'))"
                          ".backgroundColor")
    dark_page, _ = _open(browser, pages["stub"], scheme="dark")
    dark = dark_page.evaluate("getComputedStyle(document.querySelector('.sg-report'))"
                              ".backgroundColor")
    assert light != dark
    dark_page.emulate_media(media="print")
    printed = dark_page.evaluate("getComputedStyle(document.querySelector('.sg-report'))"
                                 ".backgroundColor")
    assert printed == "rgb(255, 255, 255)"
    dark_page.close()
    page.close()


def test_the_exercise_7_distributions_are_drawn(browser: Any, pages: dict[str, Path],
                                                tmp_path: Path) -> None:
    page, requests = _open(browser, pages["seven"])
    expect = sync_api.expect
    expect(page.locator(".sg-verdict")).to_contain_text("Full marks")
    chart = page.get_by_role("img", name=re.compile("first call and warm samples"))
    expect(chart).to_be_visible()
    expect(chart).to_have_accessible_description(re.compile(r"first call: 3 samples \(ms\)"))
    expect(chart).to_have_accessible_description(re.compile(r"warm: 5 samples \(ms\)"))
    first = chart.locator('g.sg-row[data-samples="first_call_s"]')
    warm = chart.locator('g.sg-row[data-samples="warm_s"]')
    expect(first.locator("circle.sg-dot")).to_have_count(3)
    expect(warm.locator("circle.sg-dot")).to_have_count(5)
    expect(first.locator("text.sg-lane-label")).to_have_text("first call")
    expect(warm.locator("text.sg-lane-label")).to_have_text("warm")
    # One axis for both rows: every dot lies over it; the first calls sit to the right.
    axis = _box(chart.locator("line.sg-axis"))
    for dot in (*first.locator("circle.sg-dot").all(), *warm.locator("circle.sg-dot").all()):
        box = _box(dot)
        assert axis["x"] - 1 <= box["x"] + box["width"] / 2 <= axis["x"] + axis["width"] + 1
    assert _box(first.locator("line.sg-median"))["x"] > _box(warm.locator("line.sg-median"))["x"]
    expect(chart.locator("text.sg-median-label")).to_have_count(2)
    assert chart.get_attribute("data-scale") in ("log scale", "linear scale")
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests
    _save(page.locator('[data-check="summary-stats"] figure'),
          "exercise-7-distributions.png", tmp_path)
    page.close()


def _centre(box: dict[str, float]) -> float:
    return box["x"] + box["width"] / 2


def test_the_exercise_8_picture_fits_and_keeps_causal_order(
        browser: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    page, _ = _open(browser, pages["eight"], width=1200)
    expect = sync_api.expect
    # The stub's one interval, drawn once (under the first check that fails on it).
    check = page.locator("li.sg-check", has=page.locator("svg.sg-interval"))
    expect(check).to_have_count(1)
    picture = check.get_by_role("img", name=re.compile("What your timer measured"))
    expect(picture).to_be_visible()
    # It fits: the page has no horizontal scroll, nor has the picture's frame.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1200
    frame = check.locator(".sg-scroll")
    assert frame.evaluate("e => e.scrollWidth <= e.clientWidth")
    svg = _box(picture)
    # No label leaves the picture or touches its neighbour's (the browser's own fonts).
    events = picture.locator("g.sg-event")
    boxes = []
    for i in range(events.count()):
        texts = events.nth(i).locator("text")
        rows = [_box(texts.nth(k)) for k in range(texts.count())
                if texts.nth(k).text_content()]
        left = min(b["x"] for b in rows)
        right = max(b["x"] + b["width"] for b in rows)
        assert svg["x"] <= left and right <= svg["x"] + svg["width"]
        boxes.append((left, right))
    assert all(a[1] < b[0] for a, b in itertools.pairwise(boxes)), boxes
    assert "…" not in (picture.text_content() or "")
    # Causal order: the compile, then the call, then the device work; the readback marked.
    kinds = [events.nth(i).get_attribute("data-kind") for i in range(events.count())]
    assert kinds == ["timer start", "compile", "call", "wait", "no readback", "timer stop"]
    compile_x = _centre(_box(picture.locator('g.sg-event[data-kind="compile"] path')))
    call_x = _centre(_box(picture.locator('g.sg-event[data-kind="call"] circle')))
    bar = _box(picture.locator("g.sg-device-work rect").first)
    assert compile_x < call_x <= bar["x"] + 1
    expect(picture.locator("g.sg-flaw text.sg-flaw-words")).to_contain_text(
        [re.compile("compiles here"), re.compile("not brought back to the host")])
    _save(check.locator("figure"), "exercise-8-stub-interval.png", tmp_path, publish=False)
    page.close()
