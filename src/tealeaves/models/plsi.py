"""``plsi``: probabilistic latent semantic indexing (Hofmann 1999) fitted by EM.

The model is P(w | d) = Σ_k θ_dk φ_kw with a free parameter θ_d per document (no prior over
θ: pLSI is not a generative model of new documents). EM alternates

- E-step: P(k | d, w) = θ_dk φ_kw / Σ_j θ_dj φ_jw, giving expected counts
  n_dk = Σ_w n_dw P(k | d, w) and n_kw = Σ_d n_dw P(k | d, w);
- M-step with pseudo-count smoothing: θ_dk = (n_dk + λ) / (N_d + Kλ), the regularisation of
  θ_d that Chang et al. (2009, §4.1) use with λ = 1 (``smoothing``), and
  φ_kw = (n_kw + β) / (n_k + Vβ) with a small ``beta`` (0.01) so that Φ is strictly positive
  (unsmoothed EM can drive probabilities to exactly zero, which every likelihood of unseen
  text would turn into -inf).

Both M-steps are maximum a posteriori under Dirichlet(1 + λ) and Dirichlet(1 + β) priors, so
EM never decreases the objective traced per iteration: the penalised log-likelihood
[Σ_dw n_dw log P(w | d) + λ Σ_dk log θ_dk + β Σ_kw log φ_kw] / N, evaluated at the
parameters the iteration starts from. θ and Φ start near uniform (normalised
Gamma(100, 1/100) draws, seeded).

Each iteration is three sparse passes over the document-term matrix (numba over documents,
then one sparse-dense product), O(nnz · K). Inference of θ for other documents is EM with Φ
fixed ("folding in", Hofmann 1999, §3.3) with the same smoothing: :func:`infer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError, check_each
from tealeaves.jit import by_documents
from tealeaves.models._bow import BagOfWords, topic_word_statistics
from tealeaves.models._kernels import plsi_e_step, plsi_fold_in
from tealeaves.models.hyperparameters import check_hyperparameters, count, positive
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_generator

RULES = {"iterations": count(1), "smoothing": positive(why="Chang et al. use 1"), "beta": positive()}
"""The ranges of :func:`fit`'s hyperparameters (:mod:`tealeaves.models.hyperparameters`)."""


def fit(
    corpus: Corpus,
    k: int,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    *,
    iterations: int = 200,
    smoothing: float = 1.0,
    beta: float = 0.01,
) -> TopicModel:
    """Fit pLSI by ``iterations`` EM iterations; see the module docstring for the parameters.

    The starting θ and Φ are drawn from the ``"train plsi"`` stream family under ``seed``
    (:func:`tealeaves.rng.family_generator`).
    """
    check_hyperparameters("plsi", RULES, locals())  # the arguments by name, before any other local
    bow = BagOfWords.of(corpus)
    lengths = np.diff(np.asarray(corpus.offsets, dtype=np.int64)).astype(np.float64)
    n_tokens = float(lengths.sum())
    rng = family_generator(seed, "train plsi")
    theta = rng.gamma(100.0, 0.01, size=(bow.n_docs, k))
    theta /= theta.sum(axis=1, keepdims=True)
    phi = rng.gamma(100.0, 0.01, size=(k, bow.n_words))
    phi /= phi.sum(axis=1, keepdims=True)
    trace: list[list[float]] = []
    for it in range(1, iterations + 1):
        theta, phi, objective = em_step(bow, lengths, theta, phi, smoothing, beta)
        trace.append([it, objective / n_tokens])
        notify(progress, "train plsi", it, iterations, objective_per_word=objective / n_tokens)
    params: dict[str, Any] = {"k": k, "iterations": iterations, "smoothing": smoothing, "beta": beta, "seed": seed}
    model = TopicModel(corpus.vocab, phi, alpha=None, theta=theta, kind="plsi", params=params)
    model.manifest["training"] = {
        "objective": "penalised log-likelihood per word (log-likelihood + λ Σ log θ + β Σ log φ) / N",
        "trace": trace,
    }
    return model


def em_step(
    bow: BagOfWords, lengths: np.ndarray, theta: np.ndarray, phi: np.ndarray, smoothing: float, beta: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """One EM iteration: the new (θ, Φ) and the penalised log-likelihood at the old ones."""
    phi_t = np.ascontiguousarray(phi.T)

    def run(first: int, stop: int) -> tuple[np.ndarray, ...]:
        part = bow.batch(first, stop)
        return plsi_e_step(part.indptr, part.indices, part.counts, theta[first:stop], phi_t)

    prob, n_dk, loglik = by_documents(run, bow.n_docs)
    objective = float(loglik.sum() + smoothing * np.log(theta).sum() + beta * np.log(phi).sum())
    n_kw = topic_word_statistics(bow, theta, prob, phi_t)
    new_theta = (n_dk + smoothing) / (lengths + theta.shape[1] * smoothing)[:, None]
    new_phi = (n_kw + beta) / (n_kw.sum(axis=1) + bow.n_words * beta)[:, None]
    return new_theta, new_phi, objective


def infer(
    model: TopicModel,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    iterations: int = 1000,
    tol: float = 1e-8,
) -> np.ndarray:
    """θ̂_d by folding in: EM over θ_d with Φ fixed and the model's pseudo-count smoothing λ.

    The MAP θ̂_d (Chang et al. 2009, §4.2) is unique: with Φ fixed, the penalised
    log-likelihood Σ_w n_dw log Σ_k θ_dk φ_kw + λ Σ_k log θ_dk is strictly concave in θ_d.
    EM starts from the uniform θ_d and stops when no θ_dk changes by more than ``tol`` or
    after ``iterations``; empty documents get the uniform θ_d. Deterministic: ``seed`` is
    accepted for the common interface and not used.
    """
    check_each("pLSI folding-in", [(iterations >= 1, "iterations >= 1", iterations), (tol > 0, "tol > 0", tol)])
    smoothing = float(model.params.get("smoothing", 1.0))
    if smoothing <= 0:
        raise InputError(f"pLSI folding-in needs a positive smoothing λ; the model has {smoothing}")
    bow = BagOfWords.of(corpus)
    notify(progress, "infer", 0, len(corpus))
    phi_t = np.ascontiguousarray(model.phi.T)

    def run(first: int, stop: int) -> tuple[np.ndarray, ...]:
        part = bow.batch(first, stop)
        return (plsi_fold_in(part.indptr, part.indices, part.counts, phi_t, smoothing, int(iterations), float(tol)),)

    (theta,) = by_documents(run, bow.n_docs)
    notify(progress, "infer", len(corpus), len(corpus))
    return theta
