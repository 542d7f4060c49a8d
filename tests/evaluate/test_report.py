"""The HTML report: self-contained (no URL, a CSP whose hashes match the inline style and script),
the verdicts of the run, every number of per_model, every topic with its flags."""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape

import pytest

import tealeaves
from tealeaves.errors import InputError
from tealeaves.evaluation import Evaluation, verdicts
from tealeaves.reporting.html import fmt

from .conftest import config


@pytest.fixture(scope="module")
def page(planted, tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    run = tealeaves.evaluate(config(planted, "lda", "random"), root / "run")
    path = tealeaves.report(root / "run", root / "report.html")
    return run, path.read_text(encoding="utf-8")


def sha256(text):
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_the_report_says_lda_beats_random_words(page):
    run, html = page
    for label in ("NPMI", "C_V", "WI-Auto-PMI", "WI-Auto-NPMI"):
        found = rf"<li data-metric='[a-z_]+'>{re.escape(label)} \(higher is better; [^<]*: lda \(this run\) better than random \(this run\) by "
        assert re.search(found, html), label
    for line in verdicts(run.comparisons, 0.05).values():
        assert escape(line) in html
    assert "no difference" not in html.lower() and "&gt; random" not in html
    assert "these trained models" in html  # one run per model: what the verdicts are about


def test_bold_marks_only_a_model_significantly_better_than_every_other(page):
    run, html = page
    bold = re.findall(r"<td class='num best' data-model='([^']+)' data-metric='([^']+)'", html)
    significant = {(r.better, r.metric) for r in run.comparisons.itertuples() if r.better}
    assert bold and set(bold) == significant  # two models: the winner of the one pair
    assert ("lda", "npmi") in set(bold)
    # the model-level rows say what they are; the untested filter has no interval
    assert "topic diversity (model-level; jackknife over topics)" in html
    assert "redundant (Hoyle et al.&#x27;s filter) (model-level; not tested)" in html


def test_page_is_self_contained_under_a_strict_policy(page):
    _, html = page
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:|//)", html)
    assert "@import" not in html and "url(" not in html
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", html, re.S).group(1)
    assert f"style-src '{sha256(style)}'" in policy and f"script-src '{sha256(script)}'" in policy
    assert html.count("<script") == 1 and " style=" not in html  # style attributes would break the policy


def test_every_per_model_number_is_in_the_summary(page):
    run, html = page
    for row in run.per_model.itertuples():
        cell = re.search(
            rf"data-model='{row.model}' data-metric='{row.metric}' data-value='([^']+)'><span class='value'>([^<]+)<",
            html,
        )
        assert cell is not None, (row.model, row.metric)
        assert float(cell.group(1)) == row.mean and cell.group(2) == fmt(row.mean)


def test_figures_and_topic_cards(page):
    run, html = page
    for metric in set(run.per_topic["metric"]):
        assert f"data-figure='distribution-{metric}'" in html and f"data-figure='comparison-{metric}'" in html
    assert html.count("<article class='card'") == len(run.topics) == 16
    # one point per model: with two models the likelihood scatter would show no trend, so it is left out
    assert "data-figure='likelihood-" not in html and "Shown with 5 models or more" in html
    flagged = run.topics[run.topics["flags"] != ""]
    assert len(flagged) > 0
    for row in flagged.itertuples():
        assert f"<li>{escape(row.flags.split('; ')[0])}</li>" in html


def test_report_refuses_a_non_html_name_and_writes_nothing(page, tmp_path):
    run, _ = page
    with pytest.raises(InputError, match=r"give out=<a file name ending in \.html>"):
        tealeaves.report(run, tmp_path / "report.txt")
    assert not list(tmp_path.iterdir())
    assert isinstance(Evaluation.load(run.path), Evaluation)
