"""Synthetic corpora (§6.1) and the perturbation study (§6.4)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.stats import chisquare

from tealeaves.errors import InputError
from tealeaves.likelihood import (
    estimate,
    exact,
    perturb_base_measure,
    perturb_topics,
    perturbation_study,
    synthetic_corpus,
)
from tealeaves.rng import family_generator

from .tiny import peaked_model


def test_one_topic_corpora_follow_phi_exactly():
    phi = np.array([[0.05, 0.1, 0.15, 0.2, 0.25, 0.25]])
    corpus = synthetic_corpus(phi, [0.5], n_docs=2000, doc_length=50, seed=3)
    counts = np.bincount(corpus.tokens, minlength=6)
    assert chisquare(counts, 100_000 * phi[0]).pvalue > 1e-3


def test_documents_have_fixed_lengths_and_are_reproducible():
    phi, alpha = peaked_model(5, 30, seed=1)
    a = synthetic_corpus(phi, alpha, n_docs=40, doc_length=17, seed=2)
    assert len(a) == 40 and np.all(a.doc_lengths() == 17) and len(a.vocab) == 30
    assert np.array_equal(a.tokens, synthetic_corpus(phi, alpha, 40, 17, seed=2).tokens)
    assert not np.array_equal(a.tokens, synthetic_corpus(phi, alpha, 40, 17, seed=3).tokens)
    assert a.manifest["synthetic"]["doc_length"] == 17


@pytest.mark.parametrize(("alpha_value", "low", "high"), [(0.01, 0.95, 1.0), (100.0, 0.0, 0.4)])
def test_alpha_controls_how_many_topics_a_document_mixes(alpha_value, low, high):
    # disjoint topics (each owns 5 words): the share of a document's tokens from its main topic
    phi = np.kron(np.eye(4), np.ones(5)) + 1e-9
    phi /= phi.sum(axis=1, keepdims=True)
    corpus = synthetic_corpus(phi, np.full(4, alpha_value), n_docs=500, doc_length=40, seed=1)
    topics = np.asarray(corpus.tokens) // 5
    main = np.array(
        [np.bincount(topics[corpus.offsets[d] : corpus.offsets[d + 1]], minlength=4).max() for d in range(500)]
    )
    share = (main / 40).mean()
    assert low <= share <= high


def test_perturbations_interpolate_towards_random_parameters():
    phi, alpha = peaked_model(3, 20, seed=2)
    assert np.allclose(perturb_topics(phi, 0.0, seed=4), phi)
    random_topics = family_generator(4, "perturb topics").dirichlet(np.ones(20), size=3)
    half = perturb_topics(phi, 0.5, seed=4)
    assert np.allclose(half, 0.5 * phi + 0.5 * random_topics) and np.allclose(half.sum(axis=1), 1)
    m_half = perturb_base_measure(alpha, 0.5, seed=4)
    m_random = family_generator(4, "perturb base measure").dirichlet(np.ones(3))
    assert np.allclose(m_half, alpha.sum() * (0.5 * alpha / alpha.sum() + 0.5 * m_random))
    assert m_half.sum() == pytest.approx(alpha.sum())
    with pytest.raises(InputError, match=r"\[0, 1\)"):
        perturb_topics(phi, 1.0)


def test_perturbation_study_reports_log_ratios():
    phi, alpha = peaked_model(4, 30, seed=5)
    docs = synthetic_corpus(phi, alpha, n_docs=30, doc_length=40, seed=1)
    evaluators = {"LR": functools.partial(estimate, method="left-to-right", particles=5)}
    result = perturbation_study(phi, alpha, docs, evaluators, lambdas=(0.5, 0.25), seed=2)
    frame = result.to_frame()
    assert list(frame.columns) == ["target", "lam", "evaluator", "total", "log_ratio"]
    assert len(frame) == 2 * 3 and list(frame.lam[:3]) == [0.0, 0.25, 0.5]
    assert np.all(frame.log_ratio[frame.lam == 0.0] == 0.0)
    phi_rows = frame[frame.target == "phi"].log_ratio.to_numpy()
    assert phi_rows[2] < phi_rows[1] < 0  # the data were drawn from the unperturbed Φ
    default = perturbation_study(phi, alpha, docs.subset(range(5)), lambdas=(0.5,), seed=2)
    assert set(default.evaluator) == {"ET (completion)", "IS-PT", "LR"}


@pytest.mark.parametrize("seed", [5, 6])
def test_estimators_never_reuse_the_draws_that_generated_the_data(seed):
    # IS-PT is unbiased for P(w) (eq. 12), and runs on distinct documents are independent, so
    # E[Π_d P̂_d / P_d] = 1 and by Markov's inequality P(Σ_d log P̂_d - Σ_d log P_d > c) <= e^-c.
    # With c = 10 a correct implementation fails with probability below 5e-5, whatever the seeds.
    # When synthetic_corpus and the estimator shared streams, equal seeds made IS-PT's first prior
    # draw the very θ that generated each document: +73 nats over the exact total here.
    phi, alpha = peaked_model(3, 40, seed=7)
    docs = synthetic_corpus(phi, alpha, n_docs=60, doc_length=30, seed=seed)
    truth = sum(exact(phi, alpha, docs.doc(d)) for d in range(len(docs)))
    same_seed = estimate(phi, alpha, docs, method="is-prior-theta", seed=seed, samples=5)
    assert same_seed.total - truth < 10.0, same_seed.total - truth
