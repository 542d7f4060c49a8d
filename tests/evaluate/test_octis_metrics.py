"""The significance and classification metrics of evaluate: the library's numbers, their units and plans, the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tealeaves
from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.evaluation import METRICS, model_fingerprint
from tealeaves.models import TopicModel, classify, topic_significance

from .conftest import config

pytest.importorskip("sklearn")

JUNK = ("kl_uniform", "kl_vacuous", "kl_background")
SCORES = ("classification_f1", "classification_precision", "classification_recall")
ON = {"significance": True, "classification": {"label": "part", "folds": 3}}


def labelled(planted, tmp_path):
    """The planted held-out corpus, each document labelled by the half of the vocabulary most of its tokens are in."""
    heldout = Corpus.load(planted / "heldout")
    half = len(heldout.vocab) // 2
    parts = ["low" if np.mean(heldout.doc(d) < half) > 0.5 else "high" for d in range(len(heldout))]
    Corpus(heldout.vocab, heldout.tokens, heldout.offsets, metadata=[{"part": p} for p in parts]).save(
        tmp_path / "heldout"
    )
    return tmp_path / "heldout"


@pytest.fixture(scope="module")
def run(planted, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("octis")
    cfg = config(planted, "lda", "lda2", "random", metrics={**dict.fromkeys(METRICS, False), **ON})
    cfg["corpora"]["heldout"] = str(labelled(planted, tmp))
    return tealeaves.evaluate(cfg, tmp / "run"), tmp


def test_both_are_off_by_default():
    assert not METRICS["significance"].default and not METRICS["classification"].default


def test_significance_per_topic_is_the_library_function(run, planted):
    evaluation, _ = run
    for name in ("lda", "lda2"):
        expected = topic_significance(TopicModel.load(planted / name))
        for metric in JUNK:
            part = evaluation.per_topic[(evaluation.per_topic.model == name) & (evaluation.per_topic.metric == metric)]
            np.testing.assert_allclose(part.sort_values("topic")["value"], getattr(expected, metric), rtol=1e-12)
    rows = evaluation.per_model.set_index(["model", "metric"])
    assert (
        rows.loc[("lda", "kl_vacuous"), "unit"] == "topic" and rows.loc[("lda", "kl_vacuous"), "plan"] == "independent"
    )
    assert set(evaluation.comparisons[evaluation.comparisons.metric == "kl_uniform"]["test"]) == {"bootstrap-t"}


def test_classification_accuracy_is_per_held_out_document_and_paired(run, planted):
    evaluation, tmp = run
    heldout = Corpus.load(tmp / "heldout")
    docs = evaluation.per_document[evaluation.per_document.metric == "classification_accuracy"]
    rows = evaluation.per_model.set_index(["model", "metric"])
    for name in ("lda", "lda2"):
        expected = classify(TopicModel.load(planted / name), heldout, "part", infer=True, folds=3, seed=0)
        part = docs[docs.model == name].sort_values("document")
        np.testing.assert_array_equal(part["document"], expected.documents)
        np.testing.assert_array_equal(part["value"], expected.correct.astype(float))
        assert rows.loc[(name, "classification_accuracy"), "mean"] == pytest.approx(expected.accuracy)
        for score in SCORES:
            assert rows.loc[(name, score), "mean"] == pytest.approx(getattr(expected, score.split("_")[1]))
            assert rows.loc[(name, score), "unit"] == "model" and pd.isna(rows.loc[(name, score), "plan"])
    assert rows.loc[("lda", "classification_accuracy"), "plan"] == "paired"
    [row] = evaluation.comparisons[evaluation.comparisons.metric == "classification_accuracy"].itertuples()
    assert (row.model_a, row.model_b, row.test) == ("lda", "lda2", "paired randomisation (studentised)")
    assert not set(SCORES) & set(evaluation.comparisons.metric)  # shown, not tested


def test_a_topic_list_is_skipped_with_the_reason(run):
    evaluation, _ = run
    skipped = {(s["model"], s["metric"]): s["reason"] for s in evaluation.manifest["skipped"]}
    assert skipped[("random", "significance")] == skipped[("random", "classification")] == "a topic list has no Φ"


def test_the_report_shows_them(run, tmp_path):
    evaluation, _ = run
    page = tealeaves.report(evaluation, tmp_path / "report.html").read_text()
    for label in ("classification accuracy", "classification F1", "KL divergence from W-Vacuous (nats)"):
        assert label in page


def test_classification_needs_a_label(planted, tmp_path):
    metrics = {**dict.fromkeys(METRICS, False), "classification": True}
    with pytest.raises(InputError, match=r"needs the metadata field to predict.*label = \"FIELD\""):
        tealeaves.evaluate(config(planted, "lda", metrics=metrics), tmp_path / "run")
    assert not (tmp_path / "run").exists()  # refused while the configuration is read, before any step


def test_the_model_fingerprint_covers_theta(planted):
    model = TopicModel.load(planted / "lda")
    other = TopicModel(model.vocab, model.phi, model.alpha, model.theta[::-1].copy(), model.kind, model.params)
    assert model_fingerprint(model) != model_fingerprint(other)
