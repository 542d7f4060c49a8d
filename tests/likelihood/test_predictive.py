"""Chang et al. 2009 §4.2: predictive log likelihood and rank, for every model kind."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import EmptyResultError, InputError, MissingDependencyError
from tealeaves.likelihood import NotAMixtureError, estimate, predictive, synthetic_corpus
from tealeaves.models import TRAINERS, TopicModel, train, trainer_params
from tealeaves.models.inference import INFERENCE

from .tiny import peaked_model


@pytest.fixture(scope="module")
def data():
    phi, alpha = peaked_model(4, 40, seed=7)
    vocab = Vocabulary([f"w{i:02d}" for i in range(40)])
    model = TopicModel(vocab, phi, alpha=alpha, kind="lda-gibbs")
    full = synthetic_corpus(model, None, 240, 40, seed=1)
    train_corpus, heldout = full.split(0.25, seed=0)
    return model, train_corpus, heldout


def independent(model, theta, corpus):
    """Per-document Σ log p(w | θ̂) and mean rank of distinct words, with numpy and scipy."""
    p = theta @ model.phi
    log_lik, ranks = [], []
    for d in range(len(corpus)):
        doc = corpus.doc(d)
        log_lik.append(np.log(p[d, doc]).sum())
        rank = rankdata(-p[d], method="min")  # 1 + number of strictly more probable words
        ranks.append(rank[np.unique(doc)].mean() if len(doc) else 0.0)
    return np.array(log_lik), np.array(ranks)


def test_matches_an_independent_computation(data):
    model, _, heldout = data
    result = predictive(model, heldout, seed=3)
    theta = model.infer(heldout, seed=3)
    log_lik, ranks = independent(model, theta, heldout)
    assert np.allclose(result.log_likelihood, log_lik, rtol=1e-12)
    assert np.allclose(result.rank, ranks)
    assert result.log_likelihood_per_word == pytest.approx(log_lik.sum() / heldout.n_tokens)
    assert result.mean_rank == pytest.approx(ranks.mean())
    assert result.log_likelihood_per_word > -np.log(40) and result.mean_rank < 20  # beats a uniform guess


@pytest.mark.parametrize("split", ["first-half", "alternate", "random"])
def test_split_infers_theta_from_one_half_and_scores_the_other(data, split):
    model, _, heldout = data
    result = predictive(model, heldout, seed=2, split=split)
    observed, held = heldout.halves(split, 2)
    log_lik, ranks = independent(model, model.infer(observed, seed=2), held)
    assert np.allclose(result.log_likelihood, log_lik) and np.allclose(result.rank, ranks)
    assert list(result.n_tokens) == list(held.doc_lengths())
    whole = predictive(model, heldout, seed=2)
    assert result.log_likelihood_per_word < whole.log_likelihood_per_word  # θ̂ no longer sees the scored words


def toy_fold_in(model, corpus, seed=0, progress=None):
    """A model-specific inference for a model without a Dirichlet prior: θ_d ∝ Σ_n φ_{·, w_n}."""
    theta = np.array([model.phi[:, corpus.doc(d)].sum(axis=1) + 1e-3 for d in range(len(corpus))])
    return theta / theta.sum(axis=1, keepdims=True)


def test_models_without_a_dirichlet_prior_use_their_own_inference(data, monkeypatch):
    model, _, heldout = data
    monkeypatch.setitem(INFERENCE, "toy-no-prior", f"{__name__}:toy_fold_in")
    no_prior = TopicModel(model.vocab, model.phi, kind="toy-no-prior")
    result = predictive(no_prior, heldout)
    log_lik, ranks = independent(no_prior, toy_fold_in(no_prior, heldout), heldout)
    assert np.allclose(result.log_likelihood, log_lik) and np.allclose(result.rank, ranks)
    assert result.model == "toy-no-prior"


@pytest.mark.parametrize("kind", sorted(TRAINERS))
def test_every_trainer_gets_predictive_metrics(data, kind):
    _, train_corpus, heldout = data
    params = {"iterations": 50} if "iterations" in trainer_params(kind) else {}
    if "epochs" in trainer_params(kind):  # the neural models, briefly
        params = {"epochs": 30, "batch_size": 50}
    try:
        model = train(train_corpus, kind, k=4, seed=0, **params)
    except MissingDependencyError as exc:
        pytest.skip(f"{kind}: {exc}")
    result = predictive(model, heldout, seed=0)
    theta = model.infer(heldout, seed=0)
    log_lik, ranks = independent(model, theta, heldout)
    assert np.allclose(result.log_likelihood, log_lik) and np.allclose(result.rank, ranks)
    assert result.log_likelihood_per_word > -np.log(40) and result.mean_rank < 20
    if model.params.get("mixture_decoder", True) is False:  # dvae: its decoder is not Σ_k θ_k φ_k
        with pytest.raises(NotAMixtureError, match="predictive"):
            estimate(model, None, heldout)
    elif model.alpha is None:  # held-out likelihood needs αm and says where to go instead
        with pytest.raises(InputError, match=r"Dirichlet prior.*predictive"):
            estimate(model, None, heldout)
    else:
        assert np.isfinite(estimate(model, None, heldout).total)


def test_results_and_refusals(data, tmp_path):
    model, _, heldout = data
    frame = predictive(model, heldout).to_frame()
    assert list(frame.columns) == [
        "doc",
        "id",
        "n_tokens",
        "log_likelihood",
        "log_likelihood_per_word",
        "n_terms",
        "rank",
    ]
    assert set(predictive(model, heldout).to_dict()) >= {"log_likelihood_per_word", "mean_rank", "rank"}
    with pytest.raises(InputError, match="split must be None or one of"):
        predictive(model, heldout, split="halves")
    with pytest.raises(InputError, match="different vocabularies"):
        predictive(model, Corpus.from_documents([[0]], Vocabulary(["x"])))
    with pytest.raises(EmptyResultError, match="no tokens"):
        predictive(model, Corpus.from_documents([[]], model.vocab))
    with pytest.raises(InputError, match="needs a TopicModel"):
        predictive(model.phi, heldout)
