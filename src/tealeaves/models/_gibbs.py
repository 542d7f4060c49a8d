"""Kernels of ``lda-gibbs`` (numba): the collapsed Gibbs sweep; and the collapsed log-likelihood.

The state is the topic assignment ``z`` of every token and its counts: ``n_wk`` (V x K, word
major, so that a token reads one contiguous row), ``n_dk`` (D x K) and ``n_k`` (K). A token's
topic is drawn from p(z = k | z_-n, w) ∝ (n_dk + α_k)(n_kw + β)/(n_k + Vβ), the counts without
the token (Griffiths & Steyvers 2004), by a scan over the K topics: the K weights and their total
first, then the first topic at which the running sum of the weights passes u · total (the scan
stops there). Accumulating the running sums while computing the weights took 10% longer on
20 Newsgroups at K = 50.

:func:`sample_documents_sparse` draws from the same distribution in time that grows with the
topics present in the token's document and word rather than with K: MALLET's SparseLDA (Yao,
Mimno & McCallum 2009, §3.4), which splits the weight of topic k into three buckets,

    (n_dk + α_k)(n_kw + β)/(n_k + Vβ) = α_k β/(n_k + Vβ)          (s, "smoothing only")
                                      + n_dk β/(n_k + Vβ)           (r, the document's topics)
                                      + (n_dk + α_k) n_kw/(n_k + Vβ) (q, the word's topics),

keeps the totals of s and r up to date as the counts change, caches the coefficient
c_k = (n_dk + α_k)/(n_k + Vβ) so that q's terms are c_k n_kw over the word's topics of nonzero
count, and draws u · (s + r + q): in q (most of the mass once topics have formed) by a scan
over the word's topics, in r by a scan over the document's, in s by a scan over the K topics.
As MALLET's ``typeTopicCounts``, a word's topics are one packed list, n_kw << b | k (b bits
hold a topic), sorted largest first and kept sorted as counts change by one (an entry moves
past its neighbours), so that the scan inside q stops within the first few entries and the
pass that totals q reads one short array. The lists are packed from ``n_wk`` by
:func:`packed_lists` (a sequential run keeps them from sweep to sweep, as MALLET does) and
unpacked into ``n_wk`` after each pass. Times beside MALLET's: the training guide (``benchmarks/lda_gibbs.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from tealeaves.jit import kernel
from tealeaves.streams import uniform


@kernel
def random_assignments(tokens: np.ndarray, k_topics: int, state: np.ndarray) -> np.ndarray:
    """A topic drawn uniformly from the K for every token (MALLET's start), from the stream ``state``."""
    z = np.empty(tokens.shape[0], dtype=np.int32)
    for i in range(tokens.shape[0]):
        z[i] = min(int(uniform(state) * k_topics), k_topics - 1)
    return z


@kernel
def sample_documents(
    tokens: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    first: int,
    last: int,
    n_wk: np.ndarray,
    n_dk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    state: np.ndarray,
) -> None:
    """One sequential collapsed Gibbs pass over the tokens of documents ``first`` to ``last - 1``.

    ``state`` is the shard's stream (uint64[1], advanced in place). A sweep over several shards
    gives each its own copy of ``n_wk`` and ``n_k`` (MALLET's ``--num-threads`` scheme, run on
    threads by :func:`tealeaves.models.lda_gibbs.gibbs_sweep`); the document-topic counts are
    the shard's own rows of ``n_dk``.
    """
    k_topics = alpha.shape[0]
    v_beta = beta * n_wk.shape[0]
    inverse = np.empty(k_topics)  # 1 / (n_k + Vβ), kept up to date as n_k changes
    for k in range(k_topics):
        inverse[k] = 1.0 / (n_k[k] + v_beta)
    weights = np.empty(k_topics)
    for d in range(first, last):
        doc = n_dk[d]
        for i in range(offsets[d], offsets[d + 1]):
            word = n_wk[tokens[i]]
            topic = z[i]
            doc[topic] -= 1
            word[topic] -= 1
            n_k[topic] -= 1
            inverse[topic] = 1.0 / (n_k[topic] + v_beta)
            for k in range(k_topics):
                weights[k] = (doc[k] + alpha[k]) * (word[k] + beta) * inverse[k]
            target = uniform(state) * _total(weights)
            topic = 0
            target -= weights[0]
            while target >= 0.0 and topic < k_topics - 1:
                topic += 1
                target -= weights[topic]
            z[i] = topic
            doc[topic] += 1
            word[topic] += 1
            n_k[topic] += 1
            inverse[topic] = 1.0 / (n_k[topic] + v_beta)


def packed_lists(n_wk: np.ndarray, n_k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The sparse sampler's word lists of the counts ``n_wk``: MALLET's ``typeTopicCounts``.

    Word w's topics of nonzero count packed as ``n_kw << bits | k``, largest first, in
    ``entries[starts[w] : starts[w] + lengths[w]]``, with room for min(K, N_w) (its tokens cannot
    be in more topics). numpy, not a kernel: it runs once per run (once per sweep with several
    shards), and a kernel's compilation took 0.3 CPU s of the first run's budget.

    Parameters
    ----------
    n_wk, n_k : numpy.ndarray
        The topic-word counts (V x K) and the topics' totals (K).

    Returns
    -------
    tuple
        ``entries``, ``starts`` (V + 1), ``lengths`` (V) and ``bits``, the bits of an entry that
        hold its topic (at least 1).
    """
    v, k = n_wk.shape
    bits = max(1, (k - 1).bit_length())
    words, topics = np.nonzero(n_wk)
    packed = (n_wk[words, topics].astype(np.int64) << bits) | topics
    order = np.lexsort((-packed, words))
    lengths = np.bincount(words, minlength=v).astype(np.int64)
    starts = np.zeros(v + 1, dtype=np.int64)
    np.cumsum(np.minimum(n_wk.sum(axis=1, dtype=np.int64), k), out=starts[1:])
    entries = np.zeros(starts[-1], dtype=np.int64)
    first = np.cumsum(lengths) - lengths  # each word's first place in the sorted nonzero entries
    entries[starts[words] + np.arange(len(words)) - first[words]] = packed[order]
    return entries, starts, lengths, bits


@kernel
def sample_documents_sparse(
    tokens: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    first: int,
    last: int,
    entries: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    bits: int,
    n_wk: np.ndarray,
    n_dk: np.ndarray,
    n_k: np.ndarray,
    alpha: np.ndarray,
    beta: float,
    state: np.ndarray,
) -> None:
    """:func:`sample_documents` by SparseLDA's buckets (see the module) on the packed lists of :func:`packed_lists`.

    The same arguments, and the lists of ``n_wk`` (:func:`packed_lists`), sampled on and kept up
    to date, then unpacked into ``n_wk`` at the end; the same distribution.

    As MALLET's ``WorkerRunnable.sampleTopicsForOneDoc``: the token leaves its topic's entry, which
    moves down its word's list past larger ones (and off its end at zero); q is totalled over the
    word's entries, and the drawn topic's entry (added at the end when new) moves up past
    smaller ones, so that each list stays sorted and the scans inside q stop early.
    """
    k_topics = alpha.shape[0]
    v_beta = beta * (starts.shape[0] - 1)
    one, mask = np.int64(1) << bits, (np.int64(1) << bits) - 1
    inverse = np.empty(k_topics)  # 1 / (n_k + Vβ)
    coefficient = np.empty(k_topics)  # (n_dk + α_k) / (n_k + Vβ); α_k / (n_k + Vβ) outside the document
    s_mass = 0.0
    for k in range(k_topics):
        inverse[k] = 1.0 / (n_k[k] + v_beta)
        coefficient[k] = alpha[k] * inverse[k]
        s_mass += alpha[k] * beta * inverse[k]
    doc_topics = np.empty(k_topics, dtype=np.int32)
    in_doc = np.zeros(k_topics, dtype=np.bool_)
    for d in range(first, last):
        doc = n_dk[d]
        n_doc = 0
        r_mass = 0.0
        for i in range(offsets[d], offsets[d + 1]):  # the document's topics, from its tokens (not a pass over K)
            topic = z[i]
            if not in_doc[topic]:
                in_doc[topic] = True
                doc_topics[n_doc] = topic
                n_doc += 1
                coefficient[topic] = (doc[topic] + alpha[topic]) * inverse[topic]
                r_mass += doc[topic] * beta * inverse[topic]
        for j in range(n_doc):
            in_doc[doc_topics[j]] = False
        for i in range(offsets[d], offsets[d + 1]):
            w = tokens[i]
            base, n_word = starts[w], lengths[w]
            topic = z[i]
            s_mass -= alpha[topic] * beta * inverse[topic]
            r_mass -= doc[topic] * beta * inverse[topic]
            doc[topic] -= 1
            n_k[topic] -= 1
            inverse[topic] = 1.0 / (n_k[topic] + v_beta)
            s_mass += alpha[topic] * beta * inverse[topic]
            r_mass += doc[topic] * beta * inverse[topic]
            coefficient[topic] = (doc[topic] + alpha[topic]) * inverse[topic]
            if doc[topic] == 0:  # off the document's list, the last in its place
                j = 0
                while doc_topics[j] != topic:
                    j += 1
                n_doc -= 1
                doc_topics[j] = doc_topics[n_doc]
            j = base
            while entries[j] & mask != topic:
                j += 1
            entries[j] -= one
            while j < base + n_word - 1 and entries[j] < entries[j + 1]:
                entries[j], entries[j + 1] = entries[j + 1], entries[j]
                j += 1
            if entries[j] < one:
                n_word -= 1
            q_mass = 0.0  # in four running sums: each addition of one waits for the one before it
            q_1 = q_2 = q_3 = 0.0
            j = base
            while j + 4 <= base + n_word:
                q_mass += coefficient[entries[j] & mask] * (entries[j] >> bits)
                q_1 += coefficient[entries[j + 1] & mask] * (entries[j + 1] >> bits)
                q_2 += coefficient[entries[j + 2] & mask] * (entries[j + 2] >> bits)
                q_3 += coefficient[entries[j + 3] & mask] * (entries[j + 3] >> bits)
                j += 4
            while j < base + n_word:
                q_mass += coefficient[entries[j] & mask] * (entries[j] >> bits)
                j += 1
            q_mass = (q_mass + q_1) + (q_2 + q_3)
            target = uniform(state) * (s_mass + r_mass + q_mass)
            if target < q_mass:
                j = base
                target -= coefficient[entries[j] & mask] * (entries[j] >> bits)
                while target >= 0.0 and j < base + n_word - 1:
                    j += 1
                    target -= coefficient[entries[j] & mask] * (entries[j] >> bits)
                j -= base
                topic = entries[base + j] & mask
            else:
                if target < q_mass + r_mass and n_doc > 0:
                    target -= q_mass
                    j = 0
                    topic = doc_topics[0]
                    target -= doc[topic] * beta * inverse[topic]
                    while target >= 0.0 and j < n_doc - 1:
                        j += 1
                        topic = doc_topics[j]
                        target -= doc[topic] * beta * inverse[topic]
                else:
                    target = max(target - q_mass - r_mass, 0.0)
                    topic = 0
                    target -= alpha[0] * beta * inverse[0]
                    while target >= 0.0 and topic < k_topics - 1:
                        topic += 1
                        target -= alpha[topic] * beta * inverse[topic]
                j = 0
                while j < n_word and entries[base + j] & mask != topic:
                    j += 1
                if j == n_word:
                    entries[base + j] = topic
                    n_word += 1
            j += base
            entries[j] += one
            while j > base and entries[j] > entries[j - 1]:
                entries[j], entries[j - 1] = entries[j - 1], entries[j]
                j -= 1
            lengths[w] = n_word
            z[i] = topic
            s_mass -= alpha[topic] * beta * inverse[topic]
            r_mass -= doc[topic] * beta * inverse[topic]
            doc[topic] += 1
            n_k[topic] += 1
            inverse[topic] = 1.0 / (n_k[topic] + v_beta)
            s_mass += alpha[topic] * beta * inverse[topic]
            r_mass += doc[topic] * beta * inverse[topic]
            coefficient[topic] = (doc[topic] + alpha[topic]) * inverse[topic]
            if doc[topic] == 1:
                doc_topics[n_doc] = topic
                n_doc += 1
        for j in range(n_doc):
            topic = doc_topics[j]
            coefficient[topic] = alpha[topic] * inverse[topic]
    for w in range(n_wk.shape[0]):
        n_wk[w] = 0
        for j in range(starts[w], starts[w] + lengths[w]):
            n_wk[w, entries[j] & mask] = entries[j] >> bits


@kernel(fastmath=True, inline="always")
def _total(weights: np.ndarray) -> float:
    """The sum of ``weights`` (fastmath: in any order)."""
    total = 0.0
    for w in weights:
        total += w
    return total


def log_joint(n_wk: np.ndarray, n_dk: np.ndarray, n_k: np.ndarray, alpha: np.ndarray, beta: float) -> float:
    """log p(w, z | α, β), Θ and Φ integrated out (MALLET's ``modelLogLikelihood``, exact log Γ):

    Σ_d [log Γ(Σα) − log Γ(N_d + Σα) + Σ_k (log Γ(n_dk + α_k) − log Γ(α_k))]
    + Σ_k [log Γ(Vβ) − log Γ(n_k + Vβ) + Σ_w (log Γ(n_kw + β) − log Γ(β))],

    the inner sums over the nonzero counts. numpy, not a kernel: it runs every 10 sweeps, and a
    kernel's compilation took 0.24 CPU s of the first run's budget.
    """
    n_docs, k_topics = n_dk.shape
    v = n_wk.shape[0]
    alpha_sum = float(alpha.sum())
    docs, doc_topics = np.nonzero(n_dk)
    words, word_topics = np.nonzero(n_wk)
    lengths = n_dk.sum(axis=1, dtype=np.int64)
    return float(
        n_docs * gammaln(alpha_sum)
        - gammaln(lengths + alpha_sum).sum()
        + (gammaln(n_dk[docs, doc_topics] + alpha[doc_topics]) - gammaln(alpha[doc_topics])).sum()
        + (gammaln(n_wk[words, word_topics] + beta) - gammaln(beta)).sum()
        + k_topics * gammaln(v * beta)
        - gammaln(n_k + v * beta).sum()
    )
