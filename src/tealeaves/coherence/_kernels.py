"""Numba kernels of the coherence package: plain arrays in, plain arrays out.

Building the index is a counting sort of the token array by word id. Counting never rescans
the corpus: the occurrences of the words asked about, merged in position order
(:func:`occurrence_keys`), are swept once. Each occurrence marks a run of *global window
numbers* (window ``t`` of document ``d`` is number ``window_offsets[d] + t``), and the sweep
counts the windows of every word and every pair of words (:func:`window_sweep`); ±c context
windows count position pairs in the same sweep order (:func:`context_sweep`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# how an occurrence maps to the windows it marks (see window_sweep)
SLIDING = 0  # boolean sliding windows, max(1, L - s + 1) per document, exact
GENSIM = 1  # the same windows as gensim 4.x's WordOccurrenceAccumulator flags them
LAU = 2  # Lau et al.'s padded windows: L + s - 1 per document
DOCUMENT = 3  # the whole document is one window


@njit(cache=True)
def scatter_positions(tokens: np.ndarray, first_position: int, cursor: np.ndarray, out: np.ndarray) -> None:
    """Counting-sort placement: ``out[cursor[w]++] = first_position + i`` for each token ``w`` at ``i``.

    ``cursor`` starts at each word's first slot; positions of one word stay in increasing order.
    """
    for i in range(tokens.shape[0]):
        w = tokens[i]
        out[cursor[w]] = first_position + i
        cursor[w] += 1


@njit(cache=True)
def append_shard(out: np.ndarray, cursor: np.ndarray, shard_counts: np.ndarray, shard_positions: np.ndarray) -> None:
    """Append one shard's word-grouped positions after what earlier shards wrote, word by word."""
    k = 0
    for w in range(shard_counts.shape[0]):
        c = shard_counts[w]
        start = cursor[w]
        for j in range(c):
            out[start + j] = shard_positions[k + j]
        cursor[w] = start + c
        k += c


@njit(cache=True)
def _advance(doc_offsets: np.ndarray, d: int, position: int) -> int:
    """The document holding ``position``, searching forward from document ``d``.

    Occurrences come in increasing order, so the next document is usually near: a few linear
    steps, then a binary search over the rest.
    """
    for _ in range(8):
        if doc_offsets[d + 1] > position:
            return d
        d += 1
    return d + int(np.searchsorted(doc_offsets[d + 1 :], position, side="right"))


@njit(parallel=True, cache=True)
def occurrence_keys(positions: np.ndarray, word_offsets: np.ndarray, words: np.ndarray, bits: int) -> np.ndarray:
    """``position << bits | slot`` for every occurrence of ``words[slot]``: sorted, the merged stream."""
    m = words.shape[0]
    start = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        start[i + 1] = start[i] + word_offsets[words[i] + 1] - word_offsets[words[i]]
    keys = np.empty(start[m], dtype=np.int64)
    for i in prange(m):
        lo = word_offsets[words[i]]
        for j in range(lo, word_offsets[words[i] + 1]):
            keys[start[i] + j - lo] = (np.int64(positions[j]) << bits) | i
    return keys


@njit(cache=True)
def _first_occurrences(
    positions: np.ndarray, word_offsets: np.ndarray, words: np.ndarray, begin: int, out: np.ndarray
) -> None:
    """Index (into ``positions``) of each word's first occurrence at or after ``begin``."""
    for v in range(words.shape[0]):
        lo = word_offsets[words[v]]
        out[v] = lo + np.searchsorted(positions[lo : word_offsets[words[v] + 1]], begin)


@njit(parallel=True, cache=True)
def window_sweep(
    keys: np.ndarray,
    bits: int,
    positions: np.ndarray,
    word_offsets: np.ndarray,
    words: np.ndarray,
    doc_offsets: np.ndarray,
    window_offsets: np.ndarray,
    mode: int,
    size: int,
    chunks: np.ndarray,
    partner_start: np.ndarray,
    partner_slot: np.ndarray,
    partner_pair: np.ndarray,
    pair_of: np.ndarray,
    n_pairs: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Windows holding each word and each pair of words.

    ``keys`` is the stream of occurrences in position order (:func:`occurrence_keys`). An
    occurrence at position ``p`` of a document with ``T`` windows (window ``t`` covers positions
    ``t .. t + s - 1``; Lau's window ``t`` covers ``t - s + 1 .. t``) marks the windows

    - SLIDING: ``max(0, p - s + 1) .. min(p, T - 1)``;
    - LAU: ``p .. p + s - 1``;
    - DOCUMENT: window 0;
    - GENSIM: gensim's ``_slide_window`` clears a word's flag when the token leaving the window
      is that word, even if a later occurrence is still inside: window ``t`` is flagged iff its
      last occurrence ``q`` and the last occurrence ``r`` before ``t`` satisfy ``q - r >= s``
      (or there is none before ``t``). Giving each flagged window to its last occurrence
      ``o_i``, occurrence ``i`` flags ``max(0, o_i - s + 1) .. min(f_i, o_{i+1} - s, T - 1)``,
      ``f_i`` being the first occurrence at or after ``o_i - s + 1`` (possibly none).

    The first marked window grows with the position, so the stream goes by first window. Each
    word's windows so far end at ``cover[w]``, and the part of them at or after any later
    first window is one run ending at ``cover[w]``. So when an occurrence adds the new windows
    ``lo .. hi`` of word ``w``, a partner ``v`` already holds ``lo .. min(hi, cover[v])`` of
    them: each window holding both words is counted once, when the second of them reaches it.
    The partners checked are those of ``w`` (``partner_*``: for each slot the slots it is
    paired with and the pair's index) or, when fewer, the words whose windows reach the
    current one (``active``), looked up in ``pair_of`` (m x m pair indices, -1 for none; empty
    when too large to hold). ``chunks`` cut the stream between documents, whose windows never
    overlap, so they run in parallel.

    Returns ``marginal`` (int64[m]) and ``joint`` (int64[n_pairs]).
    """
    m = words.shape[0]
    mask = (np.int64(1) << bits) - 1
    dense = pair_of.shape[0] == m
    n_chunks = chunks.shape[0] - 1
    marginal_parts = np.zeros((n_chunks, m), dtype=np.int64)
    joint_parts = np.zeros((n_chunks, n_pairs), dtype=np.int64)
    for c in prange(n_chunks):
        if chunks[c] == chunks[c + 1]:
            continue
        begin = keys[chunks[c]] >> bits
        seen = np.empty(m, dtype=np.int64)  # index of each word's next occurrence
        _first_occurrences(positions, word_offsets, words, begin, seen)
        reach = seen.copy()  # gensim: first occurrence at or after o_i - s + 1
        cover = np.full(m, -1, dtype=np.int64)
        active = np.empty(m, dtype=np.int64)
        listed = np.zeros(m, dtype=np.bool_)
        n_active = 0
        d = np.searchsorted(doc_offsets, begin, side="right") - 1
        for k in range(chunks[c], chunks[c + 1]):
            pos = keys[k] >> bits
            w = keys[k] & mask
            if pos >= doc_offsets[d + 1]:
                d = _advance(doc_offsets, d, pos)
            doc_start = doc_offsets[d]
            p = pos - doc_start
            base = window_offsets[d]
            top = window_offsets[d + 1] - base - 1
            j = seen[w]
            seen[w] = j + 1
            if mode == SLIDING:
                a = max(0, p - size + 1)
                b = min(p, top)
            elif mode == LAU:
                a = p
                b = p + size - 1
            elif mode == DOCUMENT:
                a = 0
                b = 0
            else:
                a = max(0, p - size + 1)
                while positions[reach[w]] < doc_start + a:
                    reach[w] += 1
                b = min(positions[reach[w]] - doc_start, top)
                if j + 1 < word_offsets[words[w] + 1] and positions[j + 1] < doc_offsets[d + 1]:
                    b = min(b, positions[j + 1] - doc_start - size)
            first = base + a
            hi = base + b
            lo = max(first, cover[w] + 1)
            if lo > hi:
                continue
            marginal_parts[c, w] += hi - lo + 1
            if dense and n_active < partner_start[w + 1] - partner_start[w]:
                kept = 0
                for i in range(n_active):
                    u = active[i]
                    reach_u = cover[u]
                    if reach_u < first:  # ends before this window: meets no later occurrence
                        listed[u] = False
                        continue
                    active[kept] = u
                    kept += 1
                    pair = pair_of[w, u]
                    if pair >= 0 and reach_u >= lo:
                        joint_parts[c, pair] += min(hi, reach_u) - lo + 1
                n_active = kept
            else:
                for e in range(partner_start[w], partner_start[w + 1]):
                    shared = min(hi, cover[partner_slot[e]]) - lo + 1
                    if shared > 0:
                        joint_parts[c, partner_pair[e]] += shared
            cover[w] = hi
            if not listed[w]:
                listed[w] = True
                active[n_active] = w
                n_active += 1
    marginal = np.zeros(m, dtype=np.int64)
    joint = np.zeros(n_pairs, dtype=np.int64)
    for c in range(n_chunks):
        marginal += marginal_parts[c]
        joint += joint_parts[c]
    return marginal, joint


@njit(parallel=True, cache=True)
def context_sweep(
    keys: np.ndarray,
    bits: int,
    positions: np.ndarray,
    word_offsets: np.ndarray,
    words: np.ndarray,
    doc_offsets: np.ndarray,
    chunks: np.ndarray,
    partner_start: np.ndarray,
    partner_slot: np.ndarray,
    partner_pair: np.ndarray,
    n_pairs: int,
    half_width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(centre, context) position pairs at distance ``1 .. c`` in the same document.

    ``keys`` is the stream of occurrences in position order (:func:`occurrence_keys`). Going
    through it, each word ``v`` keeps the index of its next occurrence (``seen``) and of its
    first occurrence still within ``c`` tokens in the same document (``near``): an occurrence
    of ``w`` at ``p`` meets ``seen[v] - near[v]`` occurrences of each partner ``v`` before it,
    so a pair of positions (of two words, or of two occurrences of a word paired with itself)
    is counted once, by its later position. ``chunks`` cut the stream between documents.

    Returns ``marginal`` (int64[m]: the context positions around each word's occurrences,
    ``min(p, c) + min(L - 1 - p, c)`` each) and ``joint`` (int64[n_pairs]: unordered pairs).
    """
    m = words.shape[0]
    mask = (np.int64(1) << bits) - 1
    n_chunks = chunks.shape[0] - 1
    marginal_parts = np.zeros((n_chunks, m), dtype=np.int64)
    joint_parts = np.zeros((n_chunks, n_pairs), dtype=np.int64)
    for c in prange(n_chunks):
        if chunks[c] == chunks[c + 1]:
            continue
        begin = keys[chunks[c]] >> bits
        seen = np.empty(m, dtype=np.int64)
        _first_occurrences(positions, word_offsets, words, begin, seen)
        near = seen.copy()
        d = np.searchsorted(doc_offsets, begin, side="right") - 1
        for k in range(chunks[c], chunks[c + 1]):
            pos = keys[k] >> bits
            w = keys[k] & mask
            if pos >= doc_offsets[d + 1]:
                d = _advance(doc_offsets, d, pos)
            doc_start = doc_offsets[d]
            doc_end = doc_offsets[d + 1]
            marginal_parts[c, w] += min(pos - doc_start, half_width) + min(doc_end - 1 - pos, half_width)
            low = max(pos - half_width, doc_start)
            for e in range(partner_start[w], partner_start[w + 1]):
                v = partner_slot[e]
                while near[v] < seen[v] and positions[near[v]] < low:
                    near[v] += 1
                joint_parts[c, partner_pair[e]] += seen[v] - near[v]
            seen[w] += 1
    marginal = np.zeros(m, dtype=np.int64)
    joint = np.zeros(n_pairs, dtype=np.int64)
    for c in range(n_chunks):
        marginal += marginal_parts[c]
        joint += joint_parts[c]
    return marginal, joint
