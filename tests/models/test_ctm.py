"""ctm: the variational E-step against brute-force optimisation, planted recovery, correlations, inference."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.optimize import minimize

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import ArtifactError, InputError
from tealeaves.models import TopicModel, ctm, train
from tealeaves.models._kernels import ctm_e_step
from tealeaves.models.compare import match_topics

from .planted import lda_corpus


def document_bound(lam, nu2, mu, precision, beta, ids, counts):
    """The per-document bound of Blei & Lafferty (2007, §3) with φ and ζ at their optima, in numpy."""
    log_zeta = np.log(np.exp(lam + nu2 / 2).sum())
    centred = lam - mu
    value = 0.5 * np.linalg.slogdet(precision)[1] - counts.sum() * log_zeta
    value += (counts * np.log(np.exp(lam) @ beta[:, ids])).sum()
    value += -0.5 * centred @ precision @ centred - 0.5 * (np.diag(precision) * nu2).sum()
    return value + 0.5 * (np.log(nu2) + 1).sum()


def bfgs_optimum(mu, precision, beta, ids, counts):
    """(λ, ν²) maximising :func:`document_bound` by BFGS over (λ, log ν²), from λ = μ, ν² = 1."""
    k = len(mu)

    def negative(x):
        return -document_bound(x[:k], np.exp(x[k:]), mu, precision, beta, ids, counts)

    best = minimize(negative, np.concatenate([mu, np.zeros(k)]), method="BFGS", options={"gtol": 1e-9})
    return best.x[:k], np.exp(best.x[k:]), -best.fun


def test_e_step_maximises_the_bound():
    """λ, ν² from the kernel maximise the per-document bound of Blei & Lafferty (2007, §3)."""
    rng = np.random.default_rng(0)
    k, v = 4, 30
    beta = rng.dirichlet(np.full(v, 0.3), size=k)
    mu = rng.normal(size=k) * 0.5
    a = rng.normal(size=(k, k))
    cov = a @ a.T / k + 0.5 * np.eye(k)
    precision = np.linalg.inv(cov)
    ids, counts = np.unique(rng.integers(0, v, size=25), return_counts=True)
    counts = counts.astype(float)

    def bound(lam, nu2):
        return document_bound(lam, nu2, mu, precision, beta, ids, counts)

    out = ctm_e_step(
        np.array([0, len(ids)]),
        ids.astype(np.int64),
        counts,
        np.ascontiguousarray(beta.T),
        mu,
        precision,
        float(np.linalg.slogdet(precision)[1]),
        mu[None].copy(),
        (1 / np.diag(precision))[None].copy(),
        500,
        1e-14,
        1,
    )
    lam, nu2, b = out[0][0], out[1][0], out[4][0]
    assert b == pytest.approx(bound(lam, nu2), rel=1e-12)
    best_lam, best_nu2, best = bfgs_optimum(mu, precision, beta, ids, counts)
    assert b >= best - 1e-7
    assert np.allclose(lam, best_lam, atol=1e-4) and np.allclose(nu2, best_nu2, rtol=1e-3)


def test_recovers_planted_topics():
    corpus, true_phi, _ = lda_corpus()
    model = train(corpus, "ctm", k=10, seed=0, iterations=30)
    _, distances = match_topics(true_phi, model.phi)
    print(f"ctm planted Hellinger distances: {np.round(np.sort(distances), 3)}")
    assert distances.max() < 0.2
    # Variational EM never lowers the bound, except through the pseudo-count β of the topic M-step
    # (not the bound's maximiser): since log(n_kw / (n_kw + β)) <= 0 and log(1 + Vβ / n_k) <= Vβ / n_k,
    # it costs at most K V β nats per iteration, K V β / N per word. Every step must respect that.
    trace = np.array([row[1] for row in model.manifest["training"]["trace"]])
    allowed = 10 * len(corpus.vocab) * model.params["beta"] / corpus.n_tokens
    assert trace[-1] > trace[0] and np.all(np.diff(trace) >= -allowed), (np.diff(trace).min(), allowed)


def test_learns_correlated_topics():
    """Data from a CTM whose topics 0 and 1 co-occur (ρ = 0.9) and 2 and 3 exclude each other (ρ = -0.9)."""
    rng = np.random.default_rng(1)
    k, v = 5, 100
    phi = np.full((k, v), 1e-3)
    for j in range(k):
        phi[j, j * 20 : (j + 1) * 20] = 1.0
    phi /= phi.sum(axis=1, keepdims=True)
    cov = np.eye(k)
    cov[0, 1] = cov[1, 0] = 0.9
    cov[2, 3] = cov[3, 2] = -0.9
    docs = []
    for eta in rng.multivariate_normal(np.zeros(k), 2.0 * cov, size=800):
        theta = np.exp(eta - eta.max())
        counts = rng.multinomial(80, theta / theta.sum())
        docs.append(np.concatenate([rng.choice(v, size=c, p=phi[j]) for j, c in enumerate(counts)]))
    corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(v)]))
    model = train(corpus, "ctm", k=k, seed=0, iterations=25)
    order, distances = match_topics(phi, model.phi)
    assert distances.max() < 0.2
    fitted = model.extra["prior_cov"]
    corr = fitted / np.sqrt(np.outer(np.diag(fitted), np.diag(fitted)))
    assert corr[order[0], order[1]] > 0.5 and corr[order[2], order[3]] < -0.5
    assert np.allclose(fitted, fitted.T) and np.all(np.linalg.eigvalsh(fitted) > 0)


def test_inference_and_layout():
    corpus, _, _ = lda_corpus(k=4, v=60, n_docs=200, length=40, seed=3)
    updates = []
    options = {"k": 4, "iterations": 5, "init_iterations": 3, "e_step_iterations": 500, "e_step_tol": 1e-14}
    model = train(corpus, "ctm", seed=0, progress=updates.append, **options)
    assert [u.task for u in updates] == ["train plsi"] * 3 + ["train ctm"] * 5  # the pLSI start, then the CTM
    trace = model.manifest["training"]["trace"]
    assert [row[1] for row in trace] == [u.info["elbo_per_word"] for u in updates[3:]]
    assert model.kind == "ctm" and model.alpha is None
    assert model.extra["prior_mean"].shape == (4,) and model.extra["prior_cov"].shape == (4, 4)
    # the stored θ is softmax(λ*), λ* maximising each document's bound under the final μ, Σ, Φ: BFGS
    # on the numpy bound finds it independently (to its gradient tolerance: λ within 1e-4, θ 1e-4)
    precision = np.linalg.inv(model.extra["prior_cov"])
    for d in range(0, len(corpus), 20):
        ids, counts = np.unique(corpus.doc(d), return_counts=True)
        lam = bfgs_optimum(model.extra["prior_mean"], precision, model.phi, ids, counts.astype(float))[0]
        assert np.allclose(model.theta[d], np.exp(lam) / np.exp(lam).sum(), atol=1e-4), d
    assert np.allclose(model.infer(corpus), model.theta, atol=1e-10)
    again = train(corpus, "ctm", seed=0, **options)
    assert np.array_equal(again.phi, model.phi)
    broken = TopicModel(model.vocab, model.phi, kind="ctm", extra={"prior_mean": np.zeros(4), "prior_cov": -np.eye(4)})
    with pytest.raises(ArtifactError, match="positive definite"):
        broken.infer(corpus)
    with pytest.raises(InputError, match="prior_mean"):
        TopicModel(model.vocab, model.phi, kind="ctm").infer(corpus)
    for fit in (functools.partial(train, corpus, "ctm"), functools.partial(ctm.fit, corpus)):  # train and fit alike
        with pytest.raises(InputError, match=r"^ctm needs k >= 2 \(a whole number; with one topic there are no "):
            fit(k=1)
