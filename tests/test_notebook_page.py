"""The executed notebook example in a real browser (Debian's Chromium driven by Playwright).

``make docs`` (a step of ``make test``, before pytest) executes
``docs/examples/plot_notebook_displays.py`` as sphinx-gallery does, and the page holds each
cell's ``_repr_html_`` output as a notebook would show it. Chromium opens the built page from
disk: no console error in the page or in the report's sandboxed frame, no request leaving the
build folder, every display present, the evaluation's figures drawn at a readable size, and the
report's own page drawn inside its frame. A screenshot of the evaluation's display goes to
``build/notebook-screenshots/``; ``docs/images/notebook-evaluation.png`` is one taken so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.chromium import chromium

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "_build" / "html" / "auto_examples" / "plot_notebook_displays.html"
SHOTS = ROOT / "build" / "notebook-screenshots"


@pytest.fixture(scope="module")
def page():
    if not PAGE.exists():
        message = f"{PAGE.relative_to(ROOT)} is not built: run make docs first (make test does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with chromium(SHOTS, width=1280) as context:
        tab = context.new_page()
        tab.messages, tab.requests = [], []
        tab.on("console", lambda m: tab.messages.append((m.type, m.text)))
        tab.on("pageerror", lambda e: tab.messages.append(("error", str(e))))
        tab.on("request", lambda r: tab.requests.append(r.url))
        tab.goto(PAGE.as_uri())
        tab.wait_for_load_state("load")
        yield tab
        tab.close()


def test_the_page_opens_clean_and_stays_in_the_build_folder(page):
    assert [m for m in page.messages if m[0] in ("error", "warning")] == []
    build = PAGE.parents[1].as_uri()
    outside = [url for url in page.requests if not (url.startswith(build) or url.startswith(("data:", "about:")))]
    assert outside == []


def test_every_cell_shows_its_display(page):
    displays = page.eval_on_selector_all(".tealeaves-display", "els => els.map(e => e.innerText)")
    # a corpus, two models, an index, two NPMI results and a diversity result
    assert len(displays) >= 7
    text = "\n".join(displays)
    for expected in ("Corpus", "plsi", "lda-gibbs", "RefIndex", "npmi", "model mean"):
        assert expected.lower() in text.lower(), expected


def test_the_evaluation_shows_its_summary_verdicts_and_figures(page):
    evaluation = page.locator(".tealeaves-evaluation")
    assert evaluation.count() == 1
    assert evaluation.locator("table").count() >= 1
    assert "better than" in evaluation.inner_text() or "not significant" in evaluation.inner_text()
    figures = evaluation.locator("svg")
    assert figures.count() >= 2
    for n in range(figures.count()):
        box = figures.nth(n).bounding_box()
        assert box is not None and box["width"] > 250 and box["height"] > 80, n
    # the cell's output as a reader scrolls to it: the summary table under the theme's header
    evaluation.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 120)")
    page.screenshot(path=str(SHOTS / "notebook-evaluation.png"))


def test_the_report_draws_inside_its_sandboxed_frame(page):
    frame_element = page.locator("iframe[srcdoc]")
    assert frame_element.count() == 1
    assert (
        frame_element.get_attribute("sandbox") == "allow-scripts"
    )  # no same-origin: its scripts cannot reach the page
    box = frame_element.bounding_box()
    assert box is not None and box["height"] > 300
    frame = frame_element.element_handle().content_frame()
    frame.wait_for_selector("#summary-table")
    assert frame.locator("#summary-table td[data-model]").count() >= 2
    assert frame.locator("figure[data-figure] svg").count() >= 2
