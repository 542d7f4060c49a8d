"""``lda-gibbs``: collapsed Gibbs sampling for LDA (Griffiths & Steyvers 2004) through tomotopy.

The model is w_n | z_n ~ Categorical(φ_{z_n}), z_n | θ_d ~ Categorical(θ_d),
θ_d ~ Dirichlet(αm), φ_k ~ Dirichlet(β). Sampling alternates over token assignments with
p(z_n = k | z_-n, w) ∝ (n_{k,w_n} + β) / (n_k + Vβ) · (n_{d,k} + α m_k).

Hyperparameters follow MALLET, as Hoyle et al. 2021 ran it (Table 8a, best NYT setting as
defaults): ``alpha_sum=0.25`` is MALLET's ``--alpha`` (the sum of the asymmetric prior; each
topic starts at alpha_sum / K), ``beta=0.1`` the symmetric topic-word prior,
``optimize_interval=10`` re-estimates the asymmetric α every that many sweeps (Minka's
fixed-point update, as MALLET) after ``optimize_burn_in=200`` sweeps (MALLET's default), and
``iterations=1000`` sweeps.

β optimisation (MALLET's ``optimizeBeta``, which runs with α whenever ``--optimize-interval``
is set): MALLET re-estimates the symmetric β during sampling; tomotopy, the sampler here, keeps η
fixed (its ``eta`` cannot be changed once training has started, nor can ``set_word_prior``). So
when ``optimize_interval > 0`` and the run goes past ``optimize_burn_in``, β is estimated once,
after sampling, from the topic-word counts n_{k,w} of the last sweep: the maximiser of the
Dirichlet-multinomial likelihood of those counts,

log p(n | β) = Σ_k [log Γ(Vβ) − log Γ(n_k + Vβ) + Σ_w (log Γ(n_{k,w} + β) − log Γ(β))],

by Minka's (2000) fixed-point update β ← β Σ_{k,w} [ψ(n_{k,w} + β) − ψ(β)] /
(V Σ_k [ψ(n_k + Vβ) − ψ(Vβ)]) (the update MALLET's ``Dirichlet.learnSymmetricConcentration``
applies to the count histograms), iterated to convergence (:func:`optimise_beta`). This
departs from MALLET in one respect, stated here rather than hidden: the assignments were sampled
under the starting β, so β̂ enters Φ but not the sampling. The ranking of a topic's words does
not depend on β (φ_{k,w} grows with n_{k,w}), so top words, coherence and the redundancy filters
are unaffected by the choice; Φ's probabilities are. The start and the estimate are in
``manifest["training"]["beta"]``.

Φ and the training θ are estimates in float64 from assignment counts n̄:
φ_{k,w} = (n̄_{k,w} + β) / (n̄_k + Vβ) and θ_{d,k} = (n̄_{d,k} + α_k) / (N_d + Σα), with the final α
and the optimised β where β is optimised. ``topics_from`` says which counts:
``"average"`` (the default), the posterior mean over the last ``average_last=50`` sweeps (one
sample per sweep); ``"last"``, the counts of the last sweep alone, which is what Hoyle et al.
read from MALLET (gensim's ``LdaMallet`` loads the final state; their sweep's default).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify

TRACE_EVERY = 10
TOPICS_FROM = ("average", "last")
BETA_TOLERANCE, BETA_MAX_ITERATIONS = 1e-12, 10_000


def fit(
    corpus: Corpus,
    k: int,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    *,
    iterations: int = 1000,
    alpha_sum: float = 0.25,
    beta: float = 0.1,
    optimize_interval: int = 10,
    optimize_burn_in: int = 200,
    workers: int = 1,
    average_last: int = 50,
    topics_from: str = "average",
) -> TopicModel:
    """Train LDA by collapsed Gibbs sampling; see the module docstring for the parameters.

    ``workers > 1`` samples in parallel (faster, but tomotopy then no longer reproduces a run
    exactly from its seed).
    """
    import tomotopy as tp

    if iterations < 1 or alpha_sum <= 0 or beta <= 0 or optimize_interval < 0 or optimize_burn_in < 0 or workers < 1:
        raise InputError(
            "lda-gibbs needs iterations >= 1, alpha_sum > 0, beta > 0, optimize_interval >= 0, "
            "optimize_burn_in >= 0 and workers >= 1"
        )
    if topics_from not in TOPICS_FROM:
        raise InputError(f"lda-gibbs topics_from must be one of {', '.join(TOPICS_FROM)}, got {topics_from!r}")
    if topics_from == "average" and (
        isinstance(average_last, bool) or not isinstance(average_last, int) or average_last < 1
    ):
        raise InputError(f"lda-gibbs needs average_last >= 1 sweeps to average, got {average_last!r}")
    model = tp.LDAModel(k=k, alpha=alpha_sum / k, eta=beta, seed=seed, min_cf=0, min_df=0, rm_top=0)
    model.optim_interval = optimize_interval
    model.burn_in = optimize_burn_in
    words = corpus.vocab.words
    for i in range(len(corpus)):
        model.add_doc([words[t] for t in corpus.doc(i)])

    trace: list[list[float]] = []
    done = 0
    averaged = min(average_last, iterations) if topics_from == "average" else 1
    n_kw = np.zeros((k, len(corpus.vocab)))
    n_dk = np.zeros((len(corpus), k))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The training result may differ", category=RuntimeWarning)
        model.train(0, workers=workers)  # builds tomotopy's vocabulary (it reorders words by frequency)
        ours = np.array([corpus.vocab.id(w) for w in model.vocabs], dtype=np.int64)
        while done < iterations:
            step = 1 if done >= iterations - averaged else min(TRACE_EVERY, iterations - averaged - done)
            model.train(step, workers=workers)
            done += step
            if done > iterations - averaged:
                _accumulate_counts(model, ours, n_kw, n_dk)
            if done % TRACE_EVERY == 0 or done == iterations:
                trace.append([done, float(model.ll_per_word)])
                notify(progress, "train lda-gibbs", done, iterations, ll_per_word=float(model.ll_per_word))

    alpha = np.asarray(model.alpha, dtype=np.float64)
    beta_used = beta
    beta_record: dict[str, Any] = {"start": beta, "optimised": None}
    if optimize_interval > 0 and iterations > optimize_burn_in:
        last = np.zeros((k, len(corpus.vocab)))
        _accumulate_counts(model, ours, last, np.zeros((len(corpus), k)))
        beta_used = optimise_beta(last, beta)
        beta_record = {
            "start": beta,
            "optimised": beta_used,
            "method": "Minka's fixed point on the last sweep's topic-word counts, after sampling",
        }
    n_kw /= averaged
    n_dk /= averaged
    phi = (n_kw + beta_used) / (n_kw.sum(axis=1, keepdims=True) + len(corpus.vocab) * beta_used)
    theta = (n_dk + alpha) / (n_dk.sum(axis=1, keepdims=True) + alpha.sum())
    params: dict[str, Any] = {
        "k": k,
        "iterations": iterations,
        "alpha_sum": alpha_sum,
        "beta": beta,
        "optimize_interval": optimize_interval,
        "optimize_burn_in": optimize_burn_in,
        "workers": workers,
        "average_last": averaged,
        "topics_from": topics_from,
        "seed": seed,
        "backend": f"tomotopy {tp.__version__}",
    }
    model_out = TopicModel(corpus.vocab, phi, alpha=alpha, theta=theta, kind="lda-gibbs", params=params)
    model_out.manifest["training"] = {"objective": "log-likelihood per word", "trace": trace, "beta": beta_record}
    return model_out


def _accumulate_counts(model: Any, ours: np.ndarray, n_kw: np.ndarray, n_dk: np.ndarray) -> None:
    """Add the sampler's current topic-word and document-topic counts to the running sums."""
    k = n_kw.shape[0]
    for d, doc in enumerate(model.docs):
        z = np.asarray(doc.topics, dtype=np.int64)
        np.add.at(n_kw, (z, ours[np.asarray(doc.words, dtype=np.int64)]), 1.0)
        n_dk[d] += np.bincount(z, minlength=k)


def beta_log_likelihood(n_kw: np.ndarray, beta: float) -> float:
    """log p(n | β) of topic-word counts ``n_kw`` (K x V) under φ_k ~ Dirichlet(β, ..., β), φ
    integrated out: Σ_k [log Γ(Vβ) − log Γ(n_k + Vβ) + Σ_w (log Γ(n_{k,w} + β) − log Γ(β))]."""
    from scipy.special import gammaln

    n_k = n_kw.sum(axis=1)
    v = n_kw.shape[1]
    return float(np.sum(gammaln(v * beta) - gammaln(n_k + v * beta)) + np.sum(gammaln(n_kw + beta) - gammaln(beta)))


def optimise_beta(n_kw: np.ndarray, start: float) -> float:
    """The β maximising :func:`beta_log_likelihood` of ``n_kw``, by Minka's (2000) fixed-point update
    for a symmetric Dirichlet, β ← β Σ_{k,w} [ψ(n_{k,w} + β) − ψ(β)] / (V Σ_k [ψ(n_k + Vβ) − ψ(Vβ)]),
    from ``start`` until the relative change is below 10⁻¹² (the update MALLET's
    ``learnSymmetricConcentration`` makes, there 200 times per optimisation, on count histograms).
    """
    from scipy.special import digamma

    v = n_kw.shape[1]
    n_k = n_kw.sum(axis=1)
    counts = n_kw[n_kw > 0]  # ψ(0 + β) − ψ(β) = 0
    if counts.size == 0 or n_k.max() <= 0:
        return start
    beta = float(start)
    for _ in range(BETA_MAX_ITERATIONS):
        numerator = float(np.sum(digamma(counts + beta) - digamma(beta)))
        denominator = v * float(np.sum(digamma(n_k + v * beta) - digamma(v * beta)))
        updated = beta * numerator / denominator
        if abs(updated - beta) <= BETA_TOLERANCE * beta:
            return updated
        beta = updated
    return beta
