"""The demo's intrusion step prints WI-Auto per model and reuses the coherence step's index."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves.coherence import RefIndex
from tealeaves.console import console
from tealeaves.corpus import Vocabulary
from tealeaves.demo import STEPS, DemoRun, step_intrusion
from tealeaves.intrusion import compare_word_intrusion
from tealeaves.likelihood import synthetic_corpus
from tealeaves.models import TopicModel

K, V = 5, 300


@pytest.fixture(scope="module")
def demo_parts():
    rng = np.random.default_rng(11)
    phi = np.full((K, V), 1e-3)
    for k in range(K):
        phi[k, k * 60 : (k + 1) * 60] += rng.dirichlet(np.full(60, 0.3))
    vocab = Vocabulary([f"d{i:03d}" for i in range(V)])
    good = TopicModel(vocab, phi / phi.sum(axis=1, keepdims=True), alpha=np.full(K, 0.1))
    shuffled = TopicModel(vocab, good.phi[:, rng.permutation(V)], alpha=good.alpha)  # topics of unrelated words
    heldout = synthetic_corpus(good, good.alpha, n_docs=400, doc_length=50, seed=3)
    return {"planted": good, "shuffled": shuffled}, heldout


def test_step_prints_wi_auto_per_model_and_writes_results(demo_parts, tmp_path):
    models, heldout = demo_parts
    run = DemoRun(out=tmp_path, heldout=heldout, models=dict(models))
    with console.capture() as captured:
        step_intrusion(run)
    text = captured.get()
    assert "WI-Auto per model" in text and "WI-Auto-PMI" in text and "WI-Auto-NPMI" in text
    index = RefIndex.load(tmp_path / "intrusion" / "heldout-index")  # no coherence step ran: built its own
    comparison = compare_word_intrusion(models, index, seed=0, on_missing="zero")  # one SVM for both models
    for name in models:
        data = json.loads((tmp_path / "intrusion" / f"{name}-wi-auto.json").read_text())
        expected = comparison[name]
        assert data["model_means"] == pytest.approx(expected.model_means)
        assert data["settings"]["models"] == ["planted", "shuffled"]
        assert f"{expected.model_means['wi_auto_pmi']:.3f}" in text
    planted = json.loads((tmp_path / "intrusion" / "planted-wi-auto.json").read_text())["model_means"]
    shuffled = json.loads((tmp_path / "intrusion" / "shuffled-wi-auto.json").read_text())["model_means"]
    assert planted["wi_auto_pmi"] > 0.9 > 0.5 > shuffled["wi_auto_pmi"]
    assert STEPS[-1] is step_intrusion


def test_step_reuses_the_coherence_index(demo_parts, tmp_path):
    models, heldout = demo_parts
    index = RefIndex.build(heldout, out=tmp_path / "coherence" / "heldout-index")
    run = DemoRun(out=tmp_path, heldout=heldout, models={"planted": models["planted"]}, index=index)
    with console.capture():
        step_intrusion(run)
    assert not (tmp_path / "intrusion" / "heldout-index").exists()
    assert (tmp_path / "intrusion" / "planted-wi-auto.json").is_file()
    assert run.index is index
