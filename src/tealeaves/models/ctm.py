"""``ctm``: the correlated topic model (Blei & Lafferty 2007) by variational EM.

The model draws η_d ~ N(μ, Σ) and sets θ_d = softmax(η_d) (a logistic-normal prior that lets
topic proportions co-vary), then z_n ~ Categorical(θ_d), w_n ~ Categorical(β_{z_n}). Chang et
al. (2009, §4.1) trained it "using variational inference [5]", as here.

- E-step per document (Blei & Lafferty 2007, §3): q(η_d) = N(λ_d, diag(ν²_d)), q(z_n) =
  Categorical(φ_n), and the bound's auxiliary ζ_d = Σ_k exp(λ_dk + ν²_dk / 2); coordinate
  ascent with φ_nk ∝ exp(λ_dk) β_{k,w_n}, damped Newton steps for λ_d (its objective is
  concave) and a one-dimensional Newton search per ν²_dk, until the bound changes by less
  than ``e_step_tol`` (relative) or after ``e_step_iterations`` rounds (20, as ctm-c's
  default "var max iter"; each round takes one damped Newton step for λ)
  (:func:`tealeaves.models._kernels.ctm_e_step`).
- M-step: μ = mean_d λ_d; Σ = (1/D) Σ_d [diag(ν²_d) + (λ_d - μ)(λ_d - μ)ᵀ] (maximum
  likelihood; positive definite because every ν² > 0); β_kw = (n̂_kw + ``beta``) / (n̂_k + V
  ``beta``) with n̂_kw = Σ_d n_dw φ_dwk, the pseudo-count keeping Φ strictly positive.
- The objective traced per iteration is the evidence lower bound per token under the
  parameters the iteration starts from.

The E-steps of training start each document from its previous λ_d, ν²_d (the first from
λ = μ, ν²_k = 1 / (Σ⁻¹)_kk); a final E-step from that cold start under the final parameters
gives the stored θ. θ̂_d = softmax(λ_d), the logistic-normal proportions at the variational
mean (the "mean of the variational posterior" of Chang et al. 2009, §4.2, as ctm-c reports
it). ``extra`` keeps ``prior_mean`` μ and ``prior_cov`` Σ, all that :func:`infer` needs with Φ.

Starting point: the topics of ``init_iterations`` EM iterations of pLSI (:mod:`tealeaves.models.plsi`,
same seed and ``beta``), μ = 0 and Σ = I. From near-uniform random topics variational EM
stalls: every λ_d stays near μ, the fitted Σ shrinks towards zero and the prior then holds the
topics together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import ArtifactError, InputError, check_each
from tealeaves.jit import by_documents
from tealeaves.models import plsi
from tealeaves.models._bow import BagOfWords, topic_word_statistics
from tealeaves.models._kernels import ctm_e_step
from tealeaves.models.hyperparameters import check_hyperparameters, count, positive
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify

NEWTON_STEPS = 1  # damped Newton steps for λ per round of coordinate ascent
RULES = {
    "k": count(2, why="with one topic there are no proportions to correlate"),
    "iterations": count(1),
    "beta": positive(),
    "e_step_iterations": count(1),
    "e_step_tol": positive(),
    "init_iterations": count(1),
}
"""The ranges of :func:`fit`'s hyperparameters (:mod:`tealeaves.models.hyperparameters`)."""


def fit(
    corpus: Corpus,
    k: int,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    *,
    iterations: int = 50,
    beta: float = 0.01,
    e_step_iterations: int = 20,
    e_step_tol: float = 1e-5,
    init_iterations: int = 50,
) -> TopicModel:
    """Fit the CTM by ``iterations`` variational EM iterations; see the module docstring."""
    check_hyperparameters("ctm", RULES, locals())  # the arguments by name, before any other local
    bow = BagOfWords.of(corpus)
    n_tokens = float(bow.counts.sum())
    topics = plsi.fit(corpus, k, seed=seed, progress=progress, iterations=init_iterations, beta=beta).phi
    mu, cov = np.zeros(k), np.eye(k)
    lam, nu2 = _cold_start(mu, np.linalg.inv(cov), bow.n_docs)
    trace: list[list[float]] = []
    for it in range(1, iterations + 1):
        lam, nu2, weights, phinorm, bound = _e_step(bow, topics, mu, cov, lam, nu2, e_step_iterations, e_step_tol)
        trace.append([it, float(bound.sum() / n_tokens)])
        notify(progress, "train ctm", it, iterations, elbo_per_word=float(bound.sum() / n_tokens))
        n_kw = topic_word_statistics(bow, weights, phinorm, np.ascontiguousarray(topics.T))
        topics = (n_kw + beta) / (n_kw.sum(axis=1) + bow.n_words * beta)[:, None]
        mu = lam.mean(axis=0)
        centred = lam - mu
        cov = (centred.T @ centred + np.diag(nu2.sum(axis=0))) / bow.n_docs
    start = _cold_start(mu, np.linalg.inv(cov), bow.n_docs)
    lam = _e_step(bow, topics, mu, cov, *start, e_step_iterations, e_step_tol)[0]
    params: dict[str, Any] = {
        "k": k,
        "iterations": iterations,
        "beta": beta,
        "e_step_iterations": e_step_iterations,
        "e_step_tol": e_step_tol,
        "init_iterations": init_iterations,
        "seed": seed,
    }
    model = TopicModel(
        corpus.vocab,
        topics,
        alpha=None,
        theta=_softmax(lam),
        kind="ctm",
        params=params,
        extra={"prior_mean": mu, "prior_cov": cov},
    )
    model.manifest["training"] = {"objective": "evidence lower bound per word", "trace": trace}
    return model


def infer(
    model: TopicModel,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    iterations: int | None = None,
    tol: float | None = None,
) -> np.ndarray:
    """θ̂_d = softmax(λ_d) by the CTM's variational E-step with Φ, μ and Σ fixed.

    Starts every document from λ = μ, ν²_k = 1 / (Σ⁻¹)_kk and runs the E-step as in training
    (the model's ``e_step_iterations`` / ``e_step_tol`` unless given). Deterministic: ``seed``
    is accepted for the common interface and not used.
    """
    if "prior_mean" not in model.extra or "prior_cov" not in model.extra:
        raise InputError(
            "CTM inference needs the logistic-normal prior: extra['prior_mean'] and extra['prior_cov']; "
            "train the model with ctm or import it again"
        )
    iterations = int(model.params.get("e_step_iterations", 20) if iterations is None else iterations)
    tol = float(model.params.get("e_step_tol", 1e-5) if tol is None else tol)
    check_each("CTM inference", [(iterations >= 1, "iterations >= 1", iterations), (tol > 0, "tol > 0", tol)])
    mu = np.asarray(model.extra["prior_mean"], dtype=np.float64)
    cov = np.asarray(model.extra["prior_cov"], dtype=np.float64)
    if mu.shape != (model.k,) or cov.shape != (model.k, model.k):
        raise ArtifactError(
            f"the CTM prior must have a mean of {model.k} values and a {model.k} x {model.k} covariance"
        )
    notify(progress, "infer", 0, len(corpus))
    precision = _precision(cov)
    bow = BagOfWords.of(corpus)
    lam = _e_step(bow, model.phi, mu, cov, *_cold_start(mu, precision, bow.n_docs), iterations, tol)[0]
    notify(progress, "infer", len(corpus), len(corpus))
    return _softmax(lam)


def _e_step(
    bow: BagOfWords,
    topics: np.ndarray,
    mu: np.ndarray,
    cov: np.ndarray,
    lam: np.ndarray,
    nu2: np.ndarray,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    precision = _precision(cov)
    logdet = -np.linalg.slogdet(cov)[1]
    beta_t = np.ascontiguousarray(topics.T)

    def run(first: int, stop: int) -> tuple[np.ndarray, ...]:
        part = bow.batch(first, stop)
        return ctm_e_step(
            part.indptr,
            part.indices,
            part.counts,
            beta_t,
            mu,
            precision,
            float(logdet),
            lam[first:stop],
            nu2[first:stop],
            int(max_iter),
            float(tol),
            NEWTON_STEPS,
        )

    lam, nu2, weights, phinorm, bound = by_documents(run, bow.n_docs)
    return lam, nu2, weights, phinorm, bound


def _precision(cov: np.ndarray) -> np.ndarray:
    try:
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ArtifactError("the CTM prior covariance is not positive definite") from None
    precision = np.linalg.inv(cov)
    return np.ascontiguousarray(0.5 * (precision + precision.T))


def _cold_start(mu: np.ndarray, precision: np.ndarray, n_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """λ_d = μ and ν²_dk = 1 / (Σ⁻¹)_kk for every document."""
    return np.tile(mu, (n_docs, 1)), np.tile(1.0 / np.diag(precision), (n_docs, 1))


def _softmax(lam: np.ndarray) -> np.ndarray:
    shifted = np.exp(lam - lam.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)
