"""plsi: one EM step against dense formulas, monotone objective, folding in, planted recovery."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError
from tealeaves.models import train
from tealeaves.models._bow import BagOfWords
from tealeaves.models.compare import hellinger, match_topics
from tealeaves.models.plsi import em_step
from tealeaves.rng import family_generator

from .planted import lda_corpus


@pytest.fixture(scope="module")
def planted():
    return lda_corpus()


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(5)
    docs = [rng.integers(0, 12, size=n) for n in (3, 9, 15, 1, 30)]
    return Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(12)]))


def test_em_step_matches_dense_formulas(small):
    rng = np.random.default_rng(0)
    k, lam, beta = 3, 1.0, 0.01
    theta = rng.dirichlet(np.ones(k), size=len(small))
    phi = rng.dirichlet(np.ones(12), size=k)
    counts = small.doc_term_matrix().toarray().astype(float)  # D x V
    joint = theta[:, :, None] * phi[None, :, :]  # D x K x V: θ_dk φ_kw
    posterior = joint / joint.sum(axis=1, keepdims=True)  # P(k | d, w)
    n_dkw = counts[:, None, :] * posterior
    expected_theta = (n_dkw.sum(axis=2) + lam) / (counts.sum(axis=1) + k * lam)[:, None]
    n_kw = n_dkw.sum(axis=0)
    expected_phi = (n_kw + beta) / (n_kw.sum(axis=1) + 12 * beta)[:, None]
    objective = (counts * np.log(joint.sum(axis=1))).sum() + lam * np.log(theta).sum() + beta * np.log(phi).sum()
    lengths = counts.sum(axis=1)
    new_theta, new_phi, value = em_step(BagOfWords.of(small), lengths, theta, phi, lam, beta)
    assert np.allclose(new_theta, expected_theta, rtol=1e-12) and np.allclose(new_phi, expected_phi, rtol=1e-12)
    assert value == pytest.approx(objective, rel=1e-12)


def test_objective_never_decreases_and_is_traced():
    corpus, _, _ = lda_corpus(k=4, v=80, n_docs=200, length=50, seed=4)
    updates = []
    model = train(corpus, "plsi", k=4, seed=1, iterations=60, progress=updates.append)
    values = np.array([row[1] for row in model.manifest["training"]["trace"]])
    assert len(values) == 60 and np.all(np.diff(values) >= -1e-12)
    assert [u.info["objective_per_word"] for u in updates] == list(values)


def test_recovers_planted_topics(planted):
    corpus, true_phi, _ = planted
    model = train(corpus, "plsi", k=10, seed=0, iterations=200)
    _, distances = match_topics(true_phi, model.phi)
    print(f"plsi planted Hellinger distances: {np.round(np.sort(distances), 3)}")
    assert distances.max() < 0.2
    assert model.alpha is None and model.kind == "plsi" and np.all(model.phi > 0)
    # folding in the training documents finds (almost) the θ that EM converged to
    assert hellinger(model.infer(corpus), model.theta).mean() < 0.02


def test_theta_smoothing_is_the_pseudo_count(planted):
    corpus, _, _ = planted
    model = train(corpus.subset(np.arange(100)), "plsi", k=5, seed=0, iterations=5, smoothing=2.0)
    lengths = corpus.subset(np.arange(100)).doc_lengths()
    # θ_dk = (n_dk + λ) / (N_d + Kλ): every θ_dk >= λ / (N_d + Kλ)
    floor = 2.0 / (lengths + 5 * 2.0)
    assert np.all(model.theta >= floor[:, None] - 1e-12)
    # the five EM iterations re-done densely in numpy from the documented start (normalised
    # Gamma(100, 1/100) draws, θ then Φ, from the stream family "train plsi" under the seed): the
    # same θ and Φ up to rounding
    rng = family_generator(0, "train plsi")
    theta = rng.gamma(100.0, 0.01, size=(100, 5))
    theta /= theta.sum(axis=1, keepdims=True)
    phi = rng.gamma(100.0, 0.01, size=(5, len(corpus.vocab)))
    phi /= phi.sum(axis=1, keepdims=True)
    counts = corpus.subset(np.arange(100)).doc_term_matrix().toarray().astype(float)
    for _ in range(5):
        joint = theta[:, :, None] * phi[None, :, :]
        n_dkw = counts[:, None, :] * joint / joint.sum(axis=1, keepdims=True)
        theta = (n_dkw.sum(axis=2) + 2.0) / (lengths + 5 * 2.0)[:, None]
        n_kw = n_dkw.sum(axis=0)
        phi = (n_kw + 0.01) / (n_kw.sum(axis=1) + len(corpus.vocab) * 0.01)[:, None]
    assert np.allclose(model.theta, theta, rtol=1e-10) and np.allclose(model.phi, phi, rtol=1e-10)


def test_fold_in_is_the_map_estimate(small):
    rng = np.random.default_rng(2)
    phi = rng.dirichlet(np.full(12, 0.5), size=3)
    model = train(small, "plsi", k=3, iterations=1)
    model.phi = phi
    theta = model.infer(small)
    counts = small.doc_term_matrix().toarray()
    for d in range(len(small)):

        def negative(x, d=d):
            t = np.exp(x - x.max())
            t /= t.sum()
            return -(counts[d] * np.log(t @ phi)).sum() - np.log(t).sum()

        best = minimize(negative, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
        expected = np.exp(best - best.max())
        assert np.allclose(theta[d], expected / expected.sum(), atol=1e-5)
    empty = Corpus.from_documents([[]], small.vocab)
    assert np.allclose(model.infer(empty), 1 / 3)


def test_bad_arguments_are_refused(small):
    for params in ({"smoothing": 0.0}, {"beta": -1.0}, {"iterations": 0}):
        with pytest.raises(InputError, match="plsi needs"):
            train(small, "plsi", k=2, **params)
    model = train(small, "plsi", k=2, iterations=2)
    for tol in (0.0, float("nan")):  # NaN passed "tol <= 0"
        with pytest.raises(InputError, match=r"^pLSI folding-in needs tol > 0, got "):
            model.infer(small, tol=tol)
