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

Φ and the training θ are posterior-mean estimates in float64 from the assignment counts
averaged over the last ``average_last=50`` sweeps (one sample per sweep):
φ_{k,w} = (n̄_{k,w} + β) / (n̄_k + Vβ) and θ_{d,k} = (n̄_{d,k} + α_k) / (N_d + Σα), with the final α.
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
    model = tp.LDAModel(k=k, alpha=alpha_sum / k, eta=beta, seed=seed, min_cf=0, min_df=0, rm_top=0)
    model.optim_interval = optimize_interval
    model.burn_in = optimize_burn_in
    words = corpus.vocab.words
    for i in range(len(corpus)):
        model.add_doc([words[t] for t in corpus.doc(i)])

    trace: list[list[float]] = []
    done = 0
    averaged = min(average_last, iterations)
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
    n_kw /= averaged
    n_dk /= averaged
    phi = (n_kw + beta) / (n_kw.sum(axis=1, keepdims=True) + len(corpus.vocab) * beta)
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
        "seed": seed,
        "backend": f"tomotopy {tp.__version__}",
    }
    model_out = TopicModel(corpus.vocab, phi, alpha=alpha, theta=theta, kind="lda-gibbs", params=params)
    model_out.manifest["training"] = {"objective": "log-likelihood per word", "trace": trace}
    return model_out


def _accumulate_counts(model: Any, ours: np.ndarray, n_kw: np.ndarray, n_dk: np.ndarray) -> None:
    """Add the sampler's current topic-word and document-topic counts to the running sums."""
    k = n_kw.shape[0]
    for d, doc in enumerate(model.docs):
        z = np.asarray(doc.topics, dtype=np.int64)
        np.add.at(n_kw, (z, ours[np.asarray(doc.words, dtype=np.int64)]), 1.0)
        n_dk[d] += np.bincount(z, minlength=k)
