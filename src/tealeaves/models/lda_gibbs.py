"""``lda-gibbs``: collapsed Gibbs sampling for LDA (Griffiths & Steyvers 2004), α and β optimised as MALLET does.

The model is w_n | z_n ~ Categorical(φ_{z_n}), z_n | θ_d ~ Categorical(θ_d),
θ_d ~ Dirichlet(α), φ_k ~ Dirichlet(β, ..., β). Every sweep resamples each token's topic, one
token after another, from p(z_n = k | z_-n, w) ∝ (n_{d,k} + α_k)(n_{k,w_n} + β)/(n_k + Vβ), the
counts without the token. The kernels are in ``models/_gibbs.py``, two samplers of that same
conditional distribution: ``sampler="dense"``, a scan over the K topics, and ``"sparse"``,
MALLET's SparseLDA (Yao, Mimno & McCallum 2009: smoothing, document and word buckets, in time
that grows with the topics present in the token's document and word); ``"auto"`` (the default)
takes the sparse one from ``SPARSE_FROM_K`` topics on (``benchmarks/lda_gibbs.py`` times both,
and MALLET). The assignments start uniformly at random, as MALLET's.

Hyperparameters follow MALLET (``ParallelTopicModel``), as Hoyle et al. 2021 ran it through
gensim's ``LdaMallet`` (Table 8a, best NYT setting as defaults): ``alpha_sum=0.25`` is MALLET's
``--alpha`` (the sum of the asymmetric prior; each topic starts at alpha_sum / K),
``beta=0.1`` the symmetric topic-word prior's start, ``iterations=1000`` sweeps, and with
``optimize_interval=10`` (``--optimize-interval``) both are re-estimated during sampling after
``optimize_burn_in=200`` sweeps (MALLET's ``burninPeriod``), as ``ParallelTopicModel.estimate``
does:

- statistics: after every sweep s > ``optimize_burn_in`` with s a multiple of
  min(10, ``optimize_interval``) (MALLET's ``saveSampleInterval``), the document-topic counts are
  added to the histograms h_k(c) = #{d : n_{d,k} = c} and L(n) = #{d : N_d = n};
- α, after every sweep s > ``optimize_burn_in`` with s a multiple of ``optimize_interval``, by one
  step of MALLET's ``Dirichlet.learnParameters(α, h, L, shape=1.001, scale=1.0,
  numIterations=1)`` (:func:`alpha_step`), Minka's (2000) fixed point with MALLET's two
  "Bayesian" terms: α_k ← α_k (Σ_c h_k(c)[ψ(α_k + c) − ψ(α_k)] + shape) /
  (Σ_n L(n)[ψ(n + Σα) − ψ(Σα)] − 1/scale); the histograms are then emptied;
- β, right after α, by MALLET's ``optimizeBeta``: ``Dirichlet.learnSymmetricConcentration`` on the
  histogram of the topic-word counts n_{k,w} > 0 and of the topic sizes n_k of the current
  sweep, 200 iterations of Minka's fixed point for a symmetric Dirichlet,
  β ← β Σ_{k,w} [ψ(n_{k,w} + β) − ψ(β)] / (V Σ_k [ψ(n_k + Vβ) − ψ(Vβ)]) (:func:`optimise_beta`),
  which maximises the Dirichlet-multinomial likelihood of the counts (:func:`beta_log_likelihood`).

The new α and β enter the following sweeps. ``manifest["training"]["hyperparameters"]`` records
[sweep, β, Σα] after each optimisation, ``manifest["training"]["beta"]`` the start and the final
β, and ``manifest["training"]["trace"]`` [sweep, log-likelihood per token] every 10 sweeps: the
collapsed joint log p(w, z | α, β) / N of MALLET's ``modelLogLikelihood`` ("LL/token"), with
exact log Γ where MALLET uses Stirling's approximation.

Differences from MALLET, none of which changes the sampled distribution: (1) the random numbers
(SplitMix64 streams, :mod:`tealeaves.rng`) and so the individual runs; (2) MALLET's
``learnSymmetricConcentration`` accumulates ψ(n_k + Vβ) − ψ(Vβ) by a recurrence that never
updates its start, which overcounts for topics of 20 tokens or fewer after another such topic;
tealeaves computes ψ directly; (3) where no statistics were collected since the last optimisation
(an ``optimize_burn_in`` not a multiple of 10 with an interval above 10), MALLET's α step divides
by −1/scale, fails and resets every α_k to 1; tealeaves keeps α then (β is optimised in both).
Where the step itself fails, as it can on a corpus of a few documents (Σ_n L(n)[ψ(n + Σα) − ψ(Σα)]
below 1/scale), both reset every α_k to 1, as MALLET's ``optimizeAlpha`` does when
``learnParameters`` returns a negative sum (tealeaves also when an α_k is not a positive finite
number); (4) MALLET 2.1.1 collects the α statistics on every sweep after the first collection:
``collectAlphaStatistics`` sets the sampler's ``shouldSaveState`` at the first sweep
s > ``optimize_burn_in`` that is a multiple of ``saveSampleInterval``, and its ``WorkerCallable``
(unlike the older ``WorkerRunnable``) never clears it (upstream issue mimno/Mallet#219), so
from then on every optimisation sees the counts of all ``optimize_interval`` sweeps since the
last one (ten times the documents with the defaults, which weighs the shape and 1/scale terms
less); tealeaves adds the counts of the sweeps that are multiples of ``saveSampleInterval``
only, as the statistics item above says and as MALLET's own schedule intends. The fixed point of MALLET's
α step is not a maximum a posteriori under a Gamma(shape, scale) prior: it is where
∂ log p(z | α)/∂α_k = −(shape + 1/scale), the local maximum of log p(z | α) + (shape + 1/scale) Σα
next to the likelihood's maximum (with thousands of documents, a small shift); MALLET takes one
step of it per optimisation.

``workers`` > 1 samples as MALLET's ``--num-threads``: the documents are split into that many
shards of about equal numbers of tokens, sampled in parallel, each against its own copy of the
topic-word counts taken at the start of the sweep, and the counts are merged after it. A run is
reproducible from its seed and number of workers (each shard draws from its own stream).

Φ and the training θ are estimates in float64 from assignment counts n̄:
φ_{k,w} = (n̄_{k,w} + β) / (n̄_k + Vβ) and θ_{d,k} = (n̄_{d,k} + α_k) / (N_d + Σα), with the final α
and β. ``topics_from`` says which counts: ``"average"`` (the default), the posterior mean over the
last ``average_last=50`` sweeps (one sample per sweep); ``"last"``, the counts of the last sweep
alone, which is what Hoyle et al. read from MALLET (gensim's ``LdaMallet`` loads the final state;
their sweep's default).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import digamma, gammaln

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.jit import map_threads
from tealeaves.models._gibbs import (
    log_joint,
    packed_lists,
    random_assignments,
    sample_documents,
    sample_documents_sparse,
)
from tealeaves.models.hyperparameters import check_hyperparameters, count, one_of, positive
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_seed
from tealeaves.streams import stream

TRACE_EVERY = 10
SAVE_SAMPLE_INTERVAL = 10  # MALLET's saveSampleInterval
ALPHA_SHAPE, ALPHA_SCALE = 1.001, 1.0  # ParallelTopicModel.optimizeAlpha's learnParameters arguments
BETA_ITERATIONS = 200  # Dirichlet.learnSymmetricConcentration's iterations
WordLists = tuple[np.ndarray, np.ndarray, np.ndarray, int]  # the sparse sampler's (_gibbs.packed_lists)
# "auto" samples by SparseLDA's buckets from this many topics on: on 20 Newsgroups after 50 sweeps
# the two samplers took the same CPU time per sweep at K = 50 (0.119 s dense, 0.121 sparse), the
# dense one less below it (0.062 against 0.087 s at K = 20) and the sparse one less above (0.163
# against 0.222 s at K = 100; benchmarks/lda_gibbs.py -k 20 30 50 100 --samplers 6 --warm 50)
SPARSE_FROM_K = 50
MALLET = "MALLET's"
RULES = {
    "iterations": count(1, also={"num_iterations": MALLET}),
    "alpha_sum": positive(also={"alpha": MALLET}),  # MALLET's --alpha is the sum of the prior
    "beta": positive(),
    "optimize_interval": count(0),
    "optimize_burn_in": count(0),
    "workers": count(1, also={"num_threads": MALLET}),
    "average_last": count(0),
    "topics_from": one_of("average", "last"),
    "sampler": one_of("auto", "dense", "sparse"),
}
"""The ranges of :func:`fit`'s hyperparameters (:mod:`tealeaves.models.hyperparameters`)."""


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
    sampler: str = "auto",
) -> TopicModel:
    """Train LDA by collapsed Gibbs sampling; see the module docstring for the parameters.

    ``workers > 1`` samples shards of the documents in parallel (MALLET's scheme); a run is
    reproducible from ``seed`` and ``workers``.
    """
    check_hyperparameters("lda-gibbs", RULES, locals())  # the arguments by name, before any other local
    if topics_from == "average" and average_last < 1:
        raise InputError(f"lda-gibbs needs average_last >= 1 sweeps to average, got {average_last!r}")
    tokens = np.ascontiguousarray(corpus.tokens, dtype=np.int32)
    offsets = np.ascontiguousarray(corpus.offsets, dtype=np.int64)
    n_docs, v = len(corpus), len(corpus.vocab)
    lengths = np.diff(offsets)

    streams = family_seed(seed, "train lda-gibbs")
    z = random_assignments(tokens, k, stream(streams, 0))
    n_wk = np.zeros((v, k), dtype=np.int32)
    n_dk = np.zeros((n_docs, k), dtype=np.int32)
    n_k = np.zeros(k, dtype=np.int64)
    assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    bounds = shard_bounds(offsets, workers)
    shards = len(bounds) - 1
    states = np.concatenate([stream(streams, 1 + s) for s in range(shards)])
    copies = shards if shards > 1 else 0
    local_wk = np.zeros((copies, v, k), dtype=np.int32)
    local_k = np.zeros((copies, k), dtype=np.int64)

    alpha = np.full(k, alpha_sum / k)
    beta_now = float(beta)
    save_every = min(SAVE_SAMPLE_INTERVAL, optimize_interval)
    topic_doc_counts = np.zeros((k, int(lengths.max(initial=0)) + 1), dtype=np.int64)
    doc_length_counts = np.zeros(topic_doc_counts.shape[1], dtype=np.int64)
    length_histogram = np.bincount(lengths, minlength=topic_doc_counts.shape[1])
    optimised: list[list[float]] = []
    trace: list[list[float]] = []
    averaged = min(average_last, iterations) if topics_from == "average" else 1
    sum_wk = np.zeros((v, k))
    sum_dk = np.zeros((n_docs, k))
    sparse = sampler == "sparse" or (sampler == "auto" and k >= SPARSE_FROM_K)
    lists = packed_lists(n_wk, n_k) if sparse and shards == 1 else None
    for done in range(1, iterations + 1):
        gibbs_sweep(
            tokens, offsets, z, n_wk, n_dk, n_k, alpha, beta_now, bounds, states, local_wk, local_k, sparse, lists
        )
        if optimize_interval > 0 and done > optimize_burn_in:
            if done % save_every == 0:
                for topic in range(k):
                    topic_doc_counts[topic] += np.bincount(n_dk[:, topic], minlength=topic_doc_counts.shape[1])
                doc_length_counts += length_histogram
            if done % optimize_interval == 0:
                if doc_length_counts.any():
                    alpha = alpha_step(alpha, topic_doc_counts, doc_length_counts)
                    if not np.all(np.isfinite(alpha) & (alpha > 0)):
                        alpha = np.ones(k)  # MALLET's reset when the step fails (very small corpora)
                beta_now = optimise_beta(n_wk.T, beta_now)
                optimised.append([done, beta_now, float(alpha.sum())])
                topic_doc_counts[:] = 0
                doc_length_counts[:] = 0
        if done > iterations - averaged:
            sum_wk += n_wk
            sum_dk += n_dk
        if done % TRACE_EVERY == 0 or done == iterations:
            ll = log_joint(n_wk, n_dk, n_k, alpha, beta_now) / max(len(tokens), 1)
            trace.append([done, ll])
            notify(progress, "train lda-gibbs", done, iterations, ll_per_word=ll)

    n_kw = sum_wk.T / averaged
    n_dk_mean = sum_dk / averaged
    phi = (n_kw + beta_now) / (n_kw.sum(axis=1, keepdims=True) + v * beta_now)
    theta = (n_dk_mean + alpha) / (n_dk_mean.sum(axis=1, keepdims=True) + alpha.sum())
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
        "sampler": sampler,
        "seed": seed,
        "backend": "tealeaves collapsed Gibbs (numba)",
    }
    model = TopicModel(corpus.vocab, phi, alpha=alpha, theta=theta, kind="lda-gibbs", params=params)
    model.manifest["training"] = {
        "objective": "log p(w, z) per token (MALLET's LL/token)",
        "trace": trace,
        "beta": {"start": float(beta), "final": beta_now},
        "hyperparameters": optimised,
        "hyperparameter_columns": ["sweep", "beta", "alpha_sum"],
        "sampler": "sparse" if sparse else "dense",
    }
    return model


def assignment_counts(
    tokens: np.ndarray, offsets: np.ndarray, z: np.ndarray, n_wk: np.ndarray, n_dk: np.ndarray, n_k: np.ndarray
) -> None:
    """Fill ``n_wk`` (V x K), ``n_dk`` (D x K) and ``n_k`` (K) with the counts of the assignments ``z``."""
    k = n_k.shape[0]
    doc = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    n_wk[:] = np.bincount(np.asarray(tokens, dtype=np.int64) * k + z, minlength=n_wk.size).reshape(n_wk.shape)
    n_dk[:] = np.bincount(doc * k + z, minlength=n_dk.size).reshape(n_dk.shape)
    n_k[:] = np.bincount(z, minlength=k)


def gibbs_sweep(
    tokens: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_wk: np.ndarray,
    n_dk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    bounds: np.ndarray,
    states: np.ndarray,
    local_wk: np.ndarray,
    local_k: np.ndarray,
    sparse: bool = False,
    lists: WordLists | None = None,
) -> None:
    """One Gibbs sweep over every token, the documents split into the shards of ``bounds``.

    Shard ``s`` holds documents ``bounds[s]`` to ``bounds[s + 1] - 1`` and draws from its own
    stream ``states[s]`` (uint64, advanced in place). With one shard the sweep is exact and
    sequential. With several (MALLET's ``--num-threads`` scheme), the shards are sampled on as
    many threads, each against its own copy of the topic-word counts (``local_wk[s]``,
    ``local_k[s]``, copied from the shared counts at the start of the sweep; the document-topic
    counts are its own), and the shared counts are the sum of the shards' changes after it: the
    same assignments for a given seed and number of shards, whatever the threads. ``sparse``
    samples by SparseLDA's buckets (``_gibbs.sample_documents_sparse``) on the packed word lists
    of each shard's counts (``_gibbs.packed_lists``), else by the scan over K. ``lists``: with one
    shard and ``sparse``, the lists of ``n_wk`` kept from sweep to sweep (as MALLET keeps its
    ``typeTopicCounts``) rather than packed again at each sweep.
    """
    n_shards = len(bounds) - 1

    def sample_shard(s: int, shard_wk: np.ndarray, shard_k: np.ndarray, kept: WordLists | None) -> None:
        first, last, state = bounds[s], bounds[s + 1], states[s : s + 1]
        if sparse:
            entries, starts, lengths, bits = kept or packed_lists(shard_wk, shard_k)
            sample_documents_sparse(
                tokens, offsets, z, first, last, entries, starts, lengths, bits,
                shard_wk, n_dk, shard_k, alpha, beta, state,
            )  # fmt: skip
        else:
            sample_documents(tokens, offsets, z, first, last, shard_wk, n_dk, shard_k, alpha, beta, state)

    if n_shards == 1:
        sample_shard(0, n_wk, n_k, lists)
        return

    packed = packed_lists(n_wk, n_k) if sparse else None  # packed once, a copy for each shard

    def sample_copy(s: int) -> None:
        local_wk[s] = n_wk
        local_k[s] = n_k
        kept = None if packed is None else (packed[0].copy(), packed[1], packed[2].copy(), packed[3])
        sample_shard(s, local_wk[s], local_k[s], kept)

    map_threads(sample_copy, range(n_shards), n_threads=n_shards)
    n_wk += (local_wk - n_wk).sum(axis=0, dtype=n_wk.dtype)
    n_k += (local_k - n_k).sum(axis=0, dtype=n_k.dtype)


def shard_bounds(offsets: np.ndarray, workers: int) -> np.ndarray:
    """The first document of each of ``workers`` shards of about equal numbers of tokens, and the end.

    Shards without documents are dropped, so a short corpus may get fewer shards than workers. From
    T + 1 workers on (T tokens) the targets lie less than a token apart and above T - 1, so every
    document that starts a new token cuts, whatever their number: it is capped at T + 1, and
    ``workers=10**12`` allocates no more than the corpus.
    """
    n_docs = len(offsets) - 1
    targets = np.linspace(0, offsets[-1], min(workers, int(offsets[-1]) + 1) + 1)[1:-1]
    cuts = np.searchsorted(offsets[:-1], targets, side="left")
    bounds = np.unique(np.concatenate([[0], np.clip(cuts, 0, n_docs), [n_docs]]))
    return bounds.astype(np.int64) if n_docs > 0 else np.array([0, 0], dtype=np.int64)


def alpha_step(
    alpha: np.ndarray,
    topic_doc_counts: np.ndarray,
    doc_length_counts: np.ndarray,
    shape: float = ALPHA_SHAPE,
    scale: float = ALPHA_SCALE,
) -> np.ndarray:
    """One step of MALLET's ``Dirichlet.learnParameters`` for the asymmetric α (see the module docstring).

    ``topic_doc_counts[k, c]`` is the number of documents with c tokens in topic k and
    ``doc_length_counts[n]`` the number of documents of n tokens (counts of 0 do not enter):
    α_k ← α_k (Σ_c h_k(c)[ψ(α_k + c) − ψ(α_k)] + shape) / (Σ_n L(n)[ψ(n + Σα) − ψ(Σα)] − 1/scale).
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    lengths = np.flatnonzero(doc_length_counts)
    lengths = lengths[lengths > 0]
    total = alpha.sum()
    denominator = float(np.sum(doc_length_counts[lengths] * (digamma(lengths + total) - digamma(total)))) - 1 / scale
    counts = np.flatnonzero(topic_doc_counts[:, 1:].any(axis=0)) + 1
    numerators = np.sum(
        topic_doc_counts[:, counts] * (digamma(alpha[:, None] + counts) - digamma(alpha)[:, None]), axis=1
    )
    return np.asarray(alpha * (numerators + shape) / denominator, dtype=np.float64)


def alpha_objective(
    alpha: np.ndarray,
    topic_doc_counts: np.ndarray,
    doc_length_counts: np.ndarray,
    shape: float = ALPHA_SHAPE,
    scale: float = ALPHA_SCALE,
) -> float:
    """The function whose local maximum :func:`alpha_step` iterates to: log p(n | α) + (shape + 1/scale) Σα.

    log p(n | α) = Σ_n L(n)[log Γ(Σα) − log Γ(n + Σα)] + Σ_{k,c} h_k(c)[log Γ(c + α_k) − log Γ(α_k)],
    the Dirichlet-multinomial likelihood of the document-topic counts summarised by the
    histograms of :func:`alpha_step`.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    lengths = np.arange(doc_length_counts.shape[0])
    counts = np.arange(topic_doc_counts.shape[1])
    total = alpha.sum()
    documents = float(np.sum(doc_length_counts * (gammaln(total) - gammaln(lengths + total))))
    topics = float(np.sum(topic_doc_counts * (gammaln(counts + alpha[:, None]) - gammaln(alpha)[:, None])))
    return documents + topics + (shape + 1 / scale) * float(total)


def beta_log_likelihood(n_kw: np.ndarray, beta: float) -> float:
    """log p(n | β) of topic-word counts ``n_kw`` (K x V) under φ_k ~ Dirichlet(β, ..., β), φ
    integrated out: Σ_k [log Γ(Vβ) − log Γ(n_k + Vβ) + Σ_w (log Γ(n_{k,w} + β) − log Γ(β))]."""
    n_k = n_kw.sum(axis=1)
    v = n_kw.shape[1]
    return float(np.sum(gammaln(v * beta) - gammaln(n_k + v * beta)) + np.sum(gammaln(n_kw + beta) - gammaln(beta)))


def optimise_beta(n_kw: np.ndarray, start: float, iterations: int = BETA_ITERATIONS) -> float:
    """MALLET's β update: ``iterations`` (200, as ``learnSymmetricConcentration``) steps of Minka's (2000)
    fixed point for a symmetric Dirichlet from ``start``,
    β ← β Σ_{k,w} [ψ(n_{k,w} + β) − ψ(β)] / (V Σ_k [ψ(n_k + Vβ) − ψ(Vβ)]),
    on the histograms of the counts ``n_kw`` (K x V; each distinct count once, with its number of
    topic-word pairs). Its fixed point maximises :func:`beta_log_likelihood`. Where the counts
    have no finite maximiser (a few documents that look alike), β grows; the last finite value is kept.
    """
    v = n_kw.shape[1]
    n_k = np.asarray(n_kw.sum(axis=1), dtype=np.float64)
    values, pairs = np.unique(n_kw[n_kw > 0], return_counts=True)  # ψ(0 + β) − ψ(β) = 0
    if values.size == 0:
        return float(start)
    sizes, topics = np.unique(n_k, return_counts=True)
    values = values.astype(np.float64)
    beta = float(start)
    for _ in range(iterations):
        numerator = float(np.sum(pairs * (digamma(values + beta) - digamma(beta))))
        denominator = v * float(np.sum(topics * (digamma(sizes + v * beta) - digamma(v * beta))))
        updated = beta * numerator / denominator
        if not (np.isfinite(updated) and updated > 0):  # counts without a finite maximiser: stop there
            break
        beta = updated
    return beta
