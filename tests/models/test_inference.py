"""θ inference with Φ fixed: agreement with training θ, determinism, thread independence, errors."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, train
from tealeaves.models.inference import gibbs_fixed_phi

from .test_lda_gibbs import hellinger, planted_corpus


@pytest.fixture(scope="module")
def fitted():
    corpus, _ = planted_corpus(seed=3)
    return corpus, train(corpus, k=4, seed=0, iterations=200, optimize_burn_in=50)


def test_infer_on_training_documents_agrees_with_training_theta(fitted):
    corpus, model = fitted
    theta = model.infer(corpus, seed=0)
    assert theta.shape == (len(corpus), 4) and np.allclose(theta.sum(axis=1), 1.0)
    assert hellinger(theta, model.theta).mean() < 0.1


def test_infer_is_deterministic_and_independent_of_threads(fitted):
    corpus, model = fitted
    a = model.infer(corpus, seed=4, burn_in=5, samples=5)
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = model.infer(corpus, seed=4, burn_in=5, samples=5)
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, model.infer(corpus, seed=5, burn_in=5, samples=5))


def test_single_word_documents_match_the_exact_posterior_mean():
    # one token: p(z = k | w) ∝ α_k φ_kw, and E[θ_k | w] = (α_k + p(z = k | w)) / (1 + Σα)
    phi = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    alpha = np.array([0.5, 1.5])
    corpus = Corpus.from_documents([[0], [2], [1]], Vocabulary(["a", "b", "c"]))
    theta = gibbs_fixed_phi(phi, alpha, corpus, seed=0, burn_in=10, samples=20_000)
    for d, w in enumerate([0, 2, 1]):
        post = alpha * phi[:, w] / (alpha * phi[:, w]).sum()
        expected = (alpha + post) / (1 + alpha.sum())
        assert np.allclose(theta[d], expected, atol=0.01)


def test_empty_documents_get_the_prior_mean():
    phi = np.array([[0.5, 0.5], [0.9, 0.1]])
    alpha = np.array([1.0, 3.0])
    corpus = Corpus.from_documents([[], [0]], Vocabulary(["a", "b"]))
    theta = gibbs_fixed_phi(phi, alpha, corpus)
    assert np.allclose(theta[0], [0.25, 0.75])


def test_infer_maps_other_vocabularies_and_texts_and_refuses_models_without_prior(fitted):
    """A corpus over another vocabulary (reversed, with an unknown word) and the same documents as token lists
    give exactly the θ of the corpus over the model's vocabulary; the unknown word is refused by default and
    left out with on_missing="skip". Before, any other vocabulary was refused and texts raised AttributeError."""
    corpus, model = fitted
    other = Corpus.from_documents([[0]], Vocabulary(["zzz"]))
    with pytest.raises(InputError, match=r"^1 tokens in 1 documents are outside the model's vocabulary"):
        model.infer(other)
    texts = [[*text, "zzz"] if d % 3 == 0 else text for d, text in enumerate(corpus.texts())]
    reversed_vocab = Vocabulary([*reversed(model.vocab.words), "zzz"])
    mapped = Corpus.from_tokenized(texts, vocab=reversed_vocab)
    expected = model.infer(corpus, seed=4)
    for given in (mapped, texts):
        with pytest.raises(InputError, match=f"^{(len(texts) + 2) // 3} tokens in {(len(texts) + 2) // 3} documents"):
            model.infer(given, seed=4)
        np.testing.assert_array_equal(model.infer(given, seed=4, on_missing="skip"), expected)
    no_prior = TopicModel(model.vocab, model.phi, kind="mystery")
    with pytest.raises(InputError, match="no Dirichlet prior"):
        no_prior.infer(corpus)
    with pytest.raises(InputError, match=r"^Gibbs inference needs samples >= 1, got 0$"):
        model.infer(corpus, samples=0)
