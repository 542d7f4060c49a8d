"""The demo's report in a real browser (Debian's Chromium driven by Playwright).

The report is made by the demo's own steps (train the four demo models, evaluate, report) on the
planted corpus, so the page holds every default metric of the four model kinds. Chromium opens it
from disk: no console error, no request besides the file itself, every figure drawn, the numbers
on screen equal to ``per_model``, search and sort working, no horizontal scroll on a phone, no
controls in print. Screenshots of the top of the page and of a topic card go to
``build/report-screenshots/``. Chromium at ``$TEALEAVES_CHROMIUM`` (default ``/usr/bin/chromium``);
when it or Playwright is missing the tests skip, or fail with ``CI=true``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tealeaves.corpus import Corpus
from tealeaves.demo import DemoRun, step_evaluate, step_models, step_report, step_train
from tealeaves.reporting.html import fmt
from tests.chromium import chromium

from .conftest import K

SHOTS = Path(__file__).resolve().parents[2] / "build" / "report-screenshots"


@pytest.fixture(scope="module")
def demo(planted, tmp_path_factory):
    """The demo's steps after ``prepare`` on the planted corpus: four models, the evaluation, the report."""
    run = DemoRun(out=tmp_path_factory.mktemp("demo"), k=K, iterations=50, show=False)
    for part in ("train", "heldout"):  # where step_prepare puts them
        shutil.copytree(planted / part, run.out / "corpus" / part)
    run.train, run.heldout = Corpus.load(run.out / "corpus" / "train"), Corpus.load(run.out / "corpus" / "heldout")
    for step in (step_train, step_models, step_evaluate, step_report):
        step(run)
    return run


@pytest.fixture(scope="module")
def browser():
    with chromium(SHOTS, width=1280) as context:
        yield context


def open_report(browser, path, width=1280, height=900):
    """A tab on the report that records console messages, requests and failed requests."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.messages, page.requests, page.failures = [], [], []
    page.on("console", lambda m: page.messages.append((m.type, m.text)))
    page.on("pageerror", lambda e: page.messages.append(("error", str(e))))
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("requestfailed", lambda r: page.failures.append(r.url))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return page


def test_report_opens_clean_with_every_figure_and_number(demo, browser):
    page = open_report(browser, demo.report)
    assert [m for m in page.messages if m[0] in ("error", "warning")] == []
    assert page.failures == [] and page.requests == [demo.report.resolve().as_uri()]
    evaluation = demo.evaluation
    expected = {f"comparison-{m}" for m in evaluation.per_model.dropna(subset=["ci_low"])["metric"]}
    expected |= {f"distribution-{m}" for m in evaluation.per_topic["metric"]}
    drawn = set(page.eval_on_selector_all("figure[data-figure]", "els => els.map(e => e.dataset.figure)"))
    assert expected <= drawn, expected - drawn
    assert not any(name.startswith("likelihood-") for name in drawn)  # four models: one point each shows no trend
    for name in expected:
        box = page.locator(f"figure[data-figure='{name}'] svg").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 80, name
    cells = page.eval_on_selector_all(
        "#summary-table td[data-model]",
        "els => els.map(e => [e.dataset.model, e.dataset.metric, e.dataset.value, e.querySelector('.value').textContent])",
    )
    assert len(cells) == len(evaluation.per_model)
    table = evaluation.per_model.set_index(["model", "metric"])["mean"]
    for model, metric, value, text in cells:
        assert float(value) == table[model, metric] and text == fmt(table[model, metric])
    page.screenshot(path=str(SHOTS / "report-top.png"))
    page.close()


def test_topic_cards_search_sort_and_screenshot(demo, browser):
    page = open_report(browser, demo.report)
    cards = page.locator(".card")
    assert cards.count() == 4 * K
    word = demo.evaluation.topics["words"].iloc[0].split()[0]
    page.fill("#search", word)
    shown = page.eval_on_selector_all(".card:not([hidden])", "els => els.map(e => e.dataset.words)")
    assert shown and all(word in words for words in shown)
    page.fill("#search", "")
    page.select_option("#sort", "npmi")
    values = page.eval_on_selector_all(".card", "els => els.map(e => parseFloat(e.dataset.npmi))")
    finite = [v for v in values if v == v]
    assert finite == sorted(finite, reverse=True)
    page.select_option("#model", "ctm")
    assert set(page.eval_on_selector_all(".card:not([hidden])", "els => els.map(e => e.dataset.model)")) == {"ctm"}
    page.locator(".card:not([hidden])").first.screenshot(path=str(SHOTS / "report-topic-card.png"))
    assert page.messages == []
    page.close()


def test_phone_width_and_print(demo, browser):
    page = open_report(browser, demo.report, width=390, height=844)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / "report-phone.png"))
    page.emulate_media(media="print")
    assert page.locator(".controls").is_hidden()
    page.close()
