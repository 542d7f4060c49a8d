"""Notebook displays: every public result, TopicModel, Corpus and RefIndex render through IPython's
display formatter as small, valid, escaped HTML and a one-line repr (tealeaves.display); an
Evaluation as the report's summary and figures, the report itself as the page in a sandboxed iframe."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import warnings
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import tealeaves
from tealeaves import display
from tealeaves.analysis import ValidationResult
from tealeaves.analysis.correlation import Correlations
from tealeaves.coherence import RefIndex, diversity, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.intrusion import auto_word_intrusion, compare_word_intrusion
from tealeaves.likelihood import estimate, perturbation_study
from tealeaves.likelihood.prediction import predictive
from tealeaves.models import TopicModel, Topics
from tealeaves.progress import ProgressUpdate
from tealeaves.stats import TestResult, bootstrap_t_interval
from tealeaves.topic_means import mean_interval

formatters = pytest.importorskip("IPython.core.formatters", reason="IPython renders the notebook displays")

TAGS = {"div", "p", "strong", "small", "table", "thead", "tbody", "tr", "th", "td"}
HOSTILE = "<script>"  # a topic word that must show as text
SIZE_LIMIT = 12_000  # characters of any one display, whatever the number of topics, words or documents
VOID = {"br", "meta"}  # tags without an end tag


class Balanced(HTMLParser):
    """Records every tag and its attributes; fails on an end tag that does not close the innermost open one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[dict[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        self.tags.append(tag)
        self.attrs.append(dict(attrs))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parsed(page: str) -> Balanced:
    """``page`` parsed, its tags balanced."""
    parser = Balanced()
    parser.feed(page)
    parser.close()
    assert not parser.stack, f"unclosed tags {parser.stack}"
    return parser


def rendered(obj) -> tuple[str, str, Balanced]:
    """The text/html and text/plain IPython's display formatter makes of ``obj``, and the parsed HTML."""
    data, _ = formatters.DisplayFormatter().format(obj)
    assert "text/html" in data, f"{type(obj).__name__} has no HTML display"
    page = data["text/html"]
    parser = parsed(page)
    assert set(parser.tags) <= TAGS, f"unexpected tags {set(parser.tags) - TAGS}"
    assert len(page) < SIZE_LIMIT, f"{type(obj).__name__} display is {len(page)} characters"
    assert parser.tags.count("tr") <= 2 * (display.MAX_ROWS + 1) + 20  # two tables: a summary and the first rows
    plain = data["text/plain"]
    assert "\n" not in plain and len(plain) < 1000
    return page, plain, parser


@pytest.fixture(scope="module")
def small():
    """A corpus whose most frequent word is ``<script>``, its index and a 4-topic model on it."""
    rng = np.random.default_rng(0)
    words = [HOSTILE, "a&b"] + [f"w{i}" for i in range(58)]
    vocab = Vocabulary(words)
    docs = [np.concatenate([[0], rng.integers(0, len(words), size=30)]) for _ in range(80)]
    corpus = Corpus.from_documents(docs, vocab, titles=[f"<b>{i}</b>" for i in range(80)])
    phi = rng.dirichlet(np.full(len(words), 0.3), size=4)
    phi[0, 0] = phi[0].max() * 2  # <script> tops topic 0
    phi /= phi.sum(axis=1, keepdims=True)
    model = TopicModel(vocab, phi, alpha=np.full(4, 0.25), kind="test", params={"k": 4})
    return corpus, RefIndex.build(corpus), model


def test_wording_is_the_reports():
    assert display.number(0.123456) == "0.1235" and display.number(np.float32(2.5)) == "2.5"
    assert display.number(np.int64(7)) == "7" and display.number(None) == "–" and display.number(np.True_) == "True"
    assert (
        display.interval_estimate(1.0, 0.5, 1.5) == "1 [0.5, 1.5]"
        and display.interval_estimate(1.0, np.nan, np.nan) == "1"
    )
    assert display.p_value(0.0004) == "p < 0.001" and display.p_value(0.01234) == "p = 0.0123"
    assert display.p_value(0.001) == "p = 0.001" and display.p_value(np.nan) == "–"
    # the mean over four topics (too few for the bootstrap) with the t interval, against scipy's own:
    # the interval is tealeaves.stats' (tests/stats), worded here
    x = np.array([0.1, 0.3, np.nan, 0.2, 0.6])
    finite = x[np.isfinite(x)]
    low, high = stats.t.interval(0.95, len(finite) - 1, loc=finite.mean(), scale=stats.sem(finite))
    assert mean_interval(x) == f"{finite.mean():.4g} [{low:.4g}, {high:.4g}]"
    assert mean_interval([2.0]) == "2" and mean_interval([np.nan]) == "nan"
    assert display.shape(1, 3) == "1 row × 3 columns" and display.shape(30, 1) == "30 rows × 1 column"
    cut = display.cell("x" * 500)
    assert len(cut) == display.MAX_CHARS and cut.endswith("…")


def test_display_formats_and_computes_no_interval():
    """display words what it is given; the interval of a mean over topics is tealeaves.stats' (its
    old names here still work, with a warning naming the new ones)."""
    from tealeaves import stats as statistics

    for old, new in (("t_interval", statistics.t_interval), ("bootstrap_t_interval", statistics.bootstrap_t_interval)):
        with pytest.warns(
            DeprecationWarning, match=f"tealeaves.display.{old} is deprecated; use tealeaves.stats.{old}"
        ):
            assert getattr(display, old) is new
    with pytest.warns(DeprecationWarning, match="use tealeaves.topic_means.mean_interval"):
        assert display.mean_interval is mean_interval
    with pytest.warns(DeprecationWarning, match="BOOTSTRAP_T_RESAMPLES"):
        assert display.BOOTSTRAP_T_RESAMPLES == 2000
    with pytest.warns(DeprecationWarning, match="BOOTSTRAP_T_MIN"):
        assert display.BOOTSTRAP_T_MIN == 5
    with pytest.raises(AttributeError):
        _ = display.nonsense


def test_model_corpus_and_index_display(small):
    corpus, index, model = small
    page, plain, parsed = rendered(model)
    assert plain == "TopicModel(kind='test', K=4, V=60)"
    assert "&lt;script&gt;" in page and "<script" not in page
    text = " ".join(parsed.text)
    assert " ".join(model.top_words(display.MAX_WORDS)[0]) in text and "K" in text
    page, plain, parsed = rendered(corpus)
    assert plain.startswith("Corpus(80 documents") and "<script" not in page
    assert f"{HOSTILE} " in " ".join(parsed.text)  # each document starts with it
    page, plain, parsed = rendered(index)
    assert plain.startswith("RefIndex(80 documents") and "<script" not in page
    first = parsed.text.index("occurrences") + 1  # the most frequent word heads the table
    assert parsed.text[first : first + 2] == [HOSTILE, str(int(index.frequency([0])[0]))]


def test_results_display(small):
    corpus, index, model = small
    npmi = score(model, index, measure="npmi")
    results = [
        npmi,
        diversity(model),
        estimate(model, None, corpus.subset(range(5)), method="left-to-right", particles=2),
        predictive(model, corpus.subset(range(5)), seed=0, burn_in=2, samples=2),
        auto_word_intrusion(model, index, seed=0, draws=2, low_rank=20, high_rank=5, folds=2),
        TestResult("paired bootstrap", 2.0, 0.0421, difference=0.1, se=0.05, ci_low=0.0, ci_high=0.2, n=40),
        Correlations("spearman", 10, 0.95, pd.DataFrame({"metric_column": ["npmi"], "mean": [0.4]}), np.zeros((10, 1))),
    ]
    frames = {name: pd.DataFrame({"metric": ["npmi"] * 30, "p_value": np.linspace(0, 1, 30)}) for name in "abcd"}
    results.append(ValidationResult(frames["a"], frames["b"], frames["c"], frames["d"]))
    for result in results:
        page, plain, parsed = rendered(result)
        assert plain.startswith(type(result).__name__ + "(")
        assert "<script" not in page
    # coherence: the model mean with its interval, the per-topic table with the words
    page, plain, parsed = rendered(npmi)
    mean = mean_interval(npmi.per_topic, (-1.0, 1.0))
    assert mean in parsed.text
    assert f"model mean (95% CI, t over 4 topics)={mean}" in plain
    assert "&lt;script&gt;" in page and " ".join(npmi.topics[0]) in parsed.text
    # a p-value column is worded as the report words it
    page, plain, parsed = rendered(results[-1])
    assert "p = 0.0345" in parsed.text and "p &lt; 0.001" in page
    assert "30 rows × 2 columns" in parsed.text  # the validation's other tables, by size
    page, plain, parsed = rendered(results[5])
    assert "p = 0.0421" in parsed.text


def test_results_of_several_models_or_rows_show_what_they_hold(small):
    """Results whose fields are all tuples or dicts still display their values, not an empty ``Name()``."""
    _, index, model = small
    comparison = compare_word_intrusion(
        {"one": model, "two": model}, index, seed=0, draws=2, low_rank=20, high_rank=5, folds=2
    )
    _, plain, parsed = rendered(comparison)
    mean = mean_interval(comparison["one"].per_topic, (0.0, 1.0))
    assert f"model mean (one; 95% CI, t over 4 topics)={mean}" in plain and mean in parsed.text
    assert parsed.tags.count("tr") == 2 + 3  # two summary rows, then a header and one row per model
    phi, alpha = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]]), np.array([0.5, 0.5])
    evaluators = {"LR": functools.partial(estimate, method="left-to-right", particles=10)}
    study = perturbation_study(phi, alpha, [[0, 1, 3], [2, 3, 3, 2]], evaluators, lambdas=[0.5], seed=0)
    _, plain, parsed = rendered(study)
    assert plain == "PerturbationResult(targets=phi, m, lambdas=0, 0.5, evaluators=LR, rows=4)"
    assert "log_ratio" in parsed.text


def test_topics_display_like_every_result():
    topics = Topics(((HOSTILE, "budget", "deficit"), ("war", "peace")), name="mallet")
    page, plain, parsed = rendered(topics)
    assert plain == "Topics(topics=2, words per topic=2-3, name=mallet)"
    assert f"{HOSTILE} budget deficit" in parsed.text and "&lt;script&gt;" in page
    assert parsed.text[parsed.text.index("words per topic") + 1] == "2-3"


def test_intervals_say_what_they_are_and_stay_within_the_metrics_bounds(small):
    """Two topics' NPMI has a t interval far wider than [-1, 1]: shown clipped, named as a t interval; twenty
    topics' is bootstrap-t's; WI-Auto stays within [0, 1]; an unbounded measure (UCI) is not clipped."""
    _, index, model = small
    vocab = Vocabulary(["tax", "budget", "war", "peace"])
    tiny = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    two = score([["tax", "budget"], ["war", "peace"]], tiny, measure="npmi", window="document")  # NPMI 1 and 0.37
    low, high = bootstrap_t_interval(two.per_topic)
    label = "model mean (95% CI, t over 2 topics)"
    shown = two.summary()[label]
    assert low < -1 or high > 1, "the fixture should give an interval wider than NPMI's range"
    assert shown == display.interval_estimate(two.model_mean, max(low, -1.0), min(high, 1.0))
    assert all(-1 <= float(bound) <= 1 for bound in shown[shown.index("[") + 1 : -1].split(", "))
    top = model.top_words(20)
    many = score([top[k % 4][k % 10 : k % 10 + 5] for k in range(20)], index, "npmi")
    assert "model mean (95% CI, bootstrap-t over 20 topics)" in many.summary()
    uci = score([["tax", "budget"], ["war", "peace"]], tiny, measure="uci", window="document")
    assert uci.summary()["model mean (95% CI, t over 2 topics)"] == mean_interval(uci.per_topic)
    wi = auto_word_intrusion(model, index, seed=0, draws=2, low_rank=20, high_rank=5, folds=2)
    value = next(v for k, v in wi.summary().items() if k.startswith("model mean (95% CI"))
    if "[" in value:
        assert all(0 <= float(bound) <= 1 for bound in value[value.index("[") + 1 : -1].split(", "))


def test_skipped_words_are_listed_by_topic(small):
    _, index, model = small
    topics = [["w1", "zorp", "w2", "w3"], ["w4", "w5", "qux", "w6"]]
    result = score(topics, index, measure="npmi", on_missing="skip")
    _, _, parsed = rendered(result)
    assert result.summary()["skipped words"] == "2: topic 0: zorp; topic 1: qux"
    assert "2: topic 0: zorp; topic 1: qux" in parsed.text
    zero = score(topics, index, measure="npmi", on_missing="zero")
    assert zero.summary()["words scored 0"] == "2: topic 0: zorp; topic 1: qux"
    lone = score([["w1", "zorp"], ["w4", "w5"]], index, measure="npmi", on_missing="skip")
    assert lone.summary()["topics not scored"] == "0"
    intrusion = auto_word_intrusion(
        [*model.top_words(10), ["zorp", *model.top_words(10)[0][1:5]]], index, seed=0, draws=2, low_rank=8,
        high_rank=5, folds=2, on_missing="zero",
    )  # fmt: skip
    assert "topic 4: zorp" in intrusion.summary()["words counted as never occurring"]  # (and where it intrudes)


def test_text_is_left_aligned_and_numbers_are_not(small):
    _, index, model = small
    page, _, parsed = rendered(score(model, index, measure="npmi"))
    header = parsed.tags.index("thead")
    cells = [(tag, attrs) for tag, attrs in zip(parsed.tags[header:], parsed.attrs[header:]) if tag == "th"]
    names = [text for text in parsed.text if text in ("topic", "value", "words")]
    assert names[:2] == ["topic", "value"] and "words" in names
    aligned = {attrs.get("style") for tag, attrs in cells}
    assert aligned == {None, "text-align:left"}  # the words column only
    assert "<td style='text-align:left'>" in page and "<th style='text-align:left'>words</th>" in page
    assert "<th style='text-align:left'>value</th>" not in page


def test_diversity_display_uses_the_commands_words(small, tmp_path):
    from typer.testing import CliRunner

    from tealeaves.cli import app

    _, _, model = small
    result = diversity(model)
    _, plain, parsed = rendered(result)
    for name in result.measures():
        assert name in parsed.text
    assert plain.startswith("DiversityResult(topics=4, topic diversity (top 25)=")
    model.topics(25).save(tmp_path / "topics.txt")
    out = CliRunner().invoke(app, ["diversity", str(tmp_path / "topics.txt")]).stdout
    for name in result.measures():
        assert name in out


def test_size_bounded_for_500_topics_and_100000_words():
    rng = np.random.default_rng(1)
    k, v = 500, 100_000
    vocab = Vocabulary([HOSTILE] + [f"w{i}" for i in range(1, v)])
    phi = rng.random((k, v)) + 0.1
    phi /= phi.sum(axis=1, keepdims=True)
    model = TopicModel(vocab, phi, alpha=np.full(k, 0.1), kind="big")
    page, _, parsed = rendered(model)
    assert f"of {k}" in page and parsed.tags.count("tr") == 5 + 1 + display.MAX_ROWS  # summary, header, rows
    del model, phi
    docs = np.arange(v).reshape(1000, 100)
    corpus = Corpus.from_documents(list(docs), vocab)
    index = RefIndex.build(corpus)
    for obj in (corpus, index):
        rendered(obj)
    topics = [[f"w{1 + (t * 10 + j) % (v - 1)}" for j in range(10)] for t in range(k)]
    result = score(topics, index, measure="npmi")
    page, _, _ = rendered(result)
    assert f"of {k} rows" in page


@pytest.fixture(scope="module")
def evaluation(small, tmp_path_factory):
    """An evaluation of the small model, named ``<script>``, against random-word topics named ``a&b``."""
    pytest.importorskip("pyarrow", reason="an evaluation needs the report extra")
    corpus, _, model = small
    root = tmp_path_factory.mktemp("evaluation")
    train_corpus, heldout = corpus.split(0.25, seed=0)
    train_corpus.save(root / "train")
    heldout.save(root / "heldout")
    model.save(root / "model")
    rng = np.random.default_rng(2)
    Topics(tuple(tuple(rng.choice(corpus.vocab.words, 25, replace=False)) for _ in range(4))).save(root / "random.txt")
    models = [{"name": HOSTILE, "path": str(root / "model")}, {"name": "a&b", "path": str(root / "random.txt")}]
    corpora = {"heldout": str(root / "heldout"), "train": str(root / "train")}
    return tealeaves.evaluate({"corpora": corpora, "models": models, "n_resamples": 200}, root / "run")


FIGURE_TAGS = {"section", "h2", "h3", "ul", "li", "br", "figure", "figcaption", "style", "svg", "title", "text"}
FIGURE_TAGS |= {"span", "line", "rect", "circle"}


def test_evaluation_displays_the_reports_summary_and_figures(evaluation, tmp_path):
    from tealeaves.evaluation import Evaluation

    page = tealeaves.report(evaluation, tmp_path / "report.html").read_text(encoding="utf-8")
    data, _ = formatters.DisplayFormatter().format(evaluation)
    inline = data["text/html"]
    parser = parsed(inline)
    assert set(parser.tags) <= TAGS | FIGURE_TAGS, set(parser.tags) - TAGS - FIGURE_TAGS
    assert not any(name.startswith("on") for attrs in parser.attrs for name in attrs)  # no script of any kind
    # escaped: the model named <script> shows as text, in the table and in the figures
    assert "<script" not in inline and "&lt;script&gt;" in inline and "a&amp;b" in inline
    assert HOSTILE in parser.text and "a&b" in parser.text
    # the report's own summary section and figures, character for character
    summary = re.search(r"<section id='summary'>.*?</section>", page).group(0)
    assert summary in inline
    figures = re.findall(r"<figure data-figure=.*?</figure>", page)
    assert figures and re.findall(r"<figure data-figure=.*?</figure>", inline) == figures
    for row in evaluation.per_model.itertuples():
        assert display.number(row.mean) in parser.text
    # bounded: no topic cards, no provenance (they stay in the page)
    assert "class='card'" not in inline and "id='provenance'" not in inline
    assert len(inline) < 60_000 and len(inline) < len(page)
    plain = data["text/plain"]
    assert plain.startswith("Evaluation(path=") and "\n" not in plain
    assert formatters.DisplayFormatter().format(Evaluation.load(evaluation.path))[0]["text/html"] == inline


def test_evaluation_display_stays_small_for_500_topics(evaluation):
    """The inline display summarises topics (quartiles, whiskers, outliers): 500 topics per model
    make it no larger than the run's few topics did, give or take the outliers' marks."""
    import dataclasses

    rng = np.random.default_rng(3)
    few = len(formatters.DisplayFormatter().format(evaluation)[0]["text/html"])
    keys = evaluation.per_topic[["model", "metric"]].drop_duplicates()
    many = pd.DataFrame(
        [(r.model, t, r.metric, rng.normal()) for r in keys.itertuples() for t in range(500)],
        columns=["model", "topic", "metric", "value"],
    )
    page = formatters.DisplayFormatter().format(dataclasses.replace(evaluation, per_topic=many))[0]["text/html"]
    parsed(page)
    assert page.count("n = 500") == 2 * len(set(many["metric"]))  # every box summarises 500 topics
    assert len(page) < few + 10_000, (few, len(page))


def test_report_is_a_path_that_displays_the_page_in_a_sandboxed_iframe(evaluation, tmp_path):
    out = tmp_path / "report.html"
    written = tealeaves.report(evaluation, out)
    assert isinstance(written, Path) and written == out and str(written) == str(out)
    assert written.parent == tmp_path and written.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    page = out.read_text(encoding="utf-8")
    assert "<script>" in page  # the page's script (search and sort the cards): the sandbox must allow scripts
    data, _ = formatters.DisplayFormatter().format(written)
    frame = data["text/html"]
    parser = parsed(frame)
    assert parser.tags == ["iframe"] and not parser.text
    attrs = parser.attrs[0]
    assert attrs["srcdoc"] == page and attrs["sandbox"] == "allow-scripts"  # no allow-same-origin
    assert "<" not in frame[len("<iframe") : frame.index("></iframe>")]  # the whole page escaped into the attribute
    assert escape(f"<div class='words'>{escape(HOSTILE)}") in frame  # the topic word <script>, as text in the page
    assert len(frame) < len(escape(page)) + 300
    out.unlink()
    assert "text/html" not in formatters.DisplayFormatter().format(written)[0]


@pytest.fixture
def in_jupyter(monkeypatch):
    """tealeaves.console as imported in a Jupyter kernel (rich's detection patched), restored afterwards."""
    import rich.console

    import tealeaves.console as console_module

    monkeypatch.setattr(rich.console, "_is_jupyter", lambda: True)
    try:
        yield importlib.reload(console_module)
    finally:
        monkeypatch.undo()
        importlib.reload(console_module)


def test_consoles_in_jupyter_are_not_terminals(in_jupyter):
    """In a Jupyter kernel rich draws HTML, not ANSI: tealeaves' consoles must not force a terminal."""
    for c in (in_jupyter.console, in_jupyter.err_console):
        assert c.is_jupyter and not c.is_terminal


def test_progress_bar_in_jupyter_without_widgets_is_plain_text(in_jupyter, capsys):
    if importlib.util.find_spec("ipywidgets") is not None:
        pytest.skip("ipywidgets is installed: rich draws the bar as a widget")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rich warns 'install "ipywidgets"' when it tries a widget
        with in_jupyter.progress_bar() as update:
            for done in range(1, 4):
                update(ProgressUpdate("train plsi", done, 3, {"loglik": -1.25}))
    err = capsys.readouterr().err
    assert "\x1b" not in err and "train plsi" in err and "3/3" in err and "loglik -1.25" in err
