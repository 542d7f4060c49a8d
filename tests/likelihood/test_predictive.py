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
        "n_oov",
    ]
    assert set(predictive(model, heldout).to_dict()) >= {"log_likelihood_per_word", "mean_rank", "rank"}
    with pytest.raises(InputError, match="split must be None or one of"):
        predictive(model, heldout, split="halves")
    with pytest.raises(
        InputError, match=r'^1 tokens in 1 documents are outside the model.s vocabulary .* on_missing="skip"'
    ):
        predictive(model, Corpus.from_documents([[0]], Vocabulary(["x"])))
    with pytest.raises(EmptyResultError, match="no tokens"):
        predictive(model, Corpus.from_documents([[]], model.vocab))
    with pytest.raises(InputError, match="needs a TopicModel"):
        predictive(model.phi, heldout)


def test_documents_over_another_vocabulary_or_as_texts_are_mapped_onto_the_models(data):
    """A corpus over another vocabulary (reordered, with words the model lacks) and the same documents as
    gensim's token lists give exactly the values of the corpus over the model's vocabulary with the unknown
    tokens removed; those are refused by default and, with on_missing="skip", dropped and counted per
    document. Before, any other vocabulary was refused ("different vocabularies") and texts were not read."""
    model, _, heldout = data
    rng = np.random.default_rng(3)
    words = [*model.vocab.words, "zzz-unknown", "aaa-unknown"]
    other = Vocabulary([words[i] for i in rng.permutation(len(words))])
    texts = []
    for text in heldout.texts():
        at = rng.integers(0, len(text) + 1, size=rng.integers(0, 3))
        texts.append([*np.insert(np.array(text, dtype=object), at, "zzz-unknown")])
    mixed = Corpus.from_tokenized(texts, vocab=other, ids=list(heldout.ids))
    n_unknown = np.array([text.count("zzz-unknown") for text in texts])
    assert n_unknown.sum() > 0
    with pytest.raises(InputError, match=f"^{n_unknown.sum()} tokens in {(n_unknown > 0).sum()} documents are outside"):
        predictive(model, mixed)
    expected = predictive(model, heldout, seed=2)
    for given in (mixed, texts):
        got = predictive(model, given, seed=2, on_missing="skip")
        np.testing.assert_array_equal(got.log_likelihood, expected.log_likelihood)
        np.testing.assert_array_equal(got.rank, expected.rank)
        np.testing.assert_array_equal(got.n_oov, n_unknown)
    assert got.summary()["tokens outside the model's vocabulary (dropped)"] == n_unknown.sum()
    assert list(predictive(model, mixed, seed=2, on_missing="skip").ids) == list(heldout.ids)
    assert expected.n_oov.sum() == 0 and "tokens outside the model's vocabulary (dropped)" not in expected.summary()
