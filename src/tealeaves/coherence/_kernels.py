"""Numba kernels of the coherence package: the sweep that counts windows of many occurrences.

Counting never rescans the corpus: the occurrences of the words asked about, merged in
position order (keys ``position << bits | slot``), are swept once. Each occurrence marks a run
of *global window numbers* (window ``t`` of document ``d`` is number ``window_offsets[d] + t``),
and the sweep counts the windows of every word and every pair of words (:func:`window_sweep`);
±c context windows count position pairs in the same sweep order (:func:`context_sweep`). A
call sweeps the keys ``first .. stop - 1``, a chunk cut between documents, whose windows never
overlap another chunk's; chunks run on threads (:func:`tealeaves.jit.map_threads`). Below
:data:`tealeaves.coherence.counting.NUMPY_MAX_OCCURRENCES` occurrences, counts are made in
numpy instead (:mod:`tealeaves.coherence.counting`), and these kernels are not loaded.
"""

from __future__ import annotations

import numpy as np

from tealeaves.coherence.counting import DOCUMENT, LAU, SLIDING
from tealeaves.jit import kernel


@kernel
def _search(values: np.ndarray, lo: int, hi: int, target: int, right: bool) -> int:
    """The first index ``i`` in ``lo .. hi`` with ``values[i] > target`` (``right``) or ``>= target``,
    ``values[lo:hi]`` being sorted (``hi`` when there is none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < target or (right and values[mid] == target):
            lo = mid + 1
        else:
            hi = mid
    return lo


@kernel
def _advance(doc_offsets: np.ndarray, d: int, position: int) -> int:
    """The document holding ``position``, searching forward from document ``d``.

    Occurrences come in increasing order, so the next document is usually near: a few linear
    steps, then a binary search over the rest.
    """
    for _ in range(8):
        if doc_offsets[d + 1] > position:
            return d
        d += 1
    return _search(doc_offsets, d + 1, doc_offsets.shape[0], position, True) - 1


@kernel
def _chunk_start(
    begin: int, positions: np.ndarray, word_offsets: np.ndarray, words: np.ndarray, doc_offsets: np.ndarray
) -> tuple[np.ndarray, int]:
    """Where a sweep from position ``begin`` starts: the index (into ``positions``) of each word's
    first occurrence at or after ``begin``, and the document holding ``begin``."""
    seen = np.empty(words.shape[0], dtype=np.int64)
    for v in range(words.shape[0]):
        seen[v] = _search(positions, word_offsets[words[v]], word_offsets[words[v] + 1], begin, False)
    return seen, _search(doc_offsets, 0, doc_offsets.shape[0], begin, True) - 1


@kernel
def window_sweep(
    first: int,
    stop: int,
    keys: np.ndarray,
    bits: int,
    positions: np.ndarray,
    word_offsets: np.ndarray,
    words: np.ndarray,
    doc_offsets: np.ndarray,
    window_offsets: np.ndarray,
    mode: int,
    size: int,
    partner_start: np.ndarray,
    partner_slot: np.ndarray,
    partner_pair: np.ndarray,
    pair_of: np.ndarray,
    marginal: np.ndarray,
    joint: np.ndarray,
) -> None:
    """Add the windows holding each word (``marginal``, int64[m]) and each pair of words (``joint``,
    int64[n_pairs]) in the chunk ``keys[first:stop]``.

    ``keys`` is the stream of occurrences in position order. An occurrence marks the windows of
    :func:`tealeaves.coherence.counting.window_pieces` (by ``mode``: SLIDING, GENSIM, LAU or
    DOCUMENT). The first marked window grows with the position, so the stream goes by first
    window. Each word's windows so far end at ``cover[w]``, and the part of them at or after
    any later first window is one run ending at ``cover[w]``. So when an occurrence adds the
    new windows ``lo .. hi`` of word ``w``, a partner ``v`` already holds
    ``lo .. min(hi, cover[v])`` of them: each window holding both words is counted once, when
    the second of them reaches it. The partners checked are those of ``w`` (``partner_*``: for
    each slot the slots it is paired with and the pair's index) or, when fewer, the words whose
    windows reach the current one (``active``), looked up in ``pair_of`` (m x m pair indices,
    -1 for none; empty when too large to hold).
    """
    m = words.shape[0]
    if first == stop:
        return
    mask = (np.int64(1) << bits) - 1
    dense = pair_of.shape[0] == m
    seen, d = _chunk_start(keys[first] >> bits, positions, word_offsets, words, doc_offsets)
    reach = seen.copy()  # gensim: first occurrence at or after o_i - s + 1
    cover = np.full(m, -1, dtype=np.int64)
    active = np.empty(m, dtype=np.int64)
    listed = np.zeros(m, dtype=np.bool_)
    n_active = 0
    for k in range(first, stop):
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
        window = base + a
        hi = base + b
        lo = max(window, cover[w] + 1)
        if lo > hi:
            continue
        marginal[w] += hi - lo + 1
        if dense and n_active < partner_start[w + 1] - partner_start[w]:
            kept = 0
            for i in range(n_active):
                u = active[i]
                reach_u = cover[u]
                if reach_u < window:  # ends before this window: meets no later occurrence
                    listed[u] = False
                    continue
                active[kept] = u
                kept += 1
                pair = pair_of[w, u]
                if pair >= 0 and reach_u >= lo:
                    joint[pair] += min(hi, reach_u) - lo + 1
            n_active = kept
        else:
            for e in range(partner_start[w], partner_start[w + 1]):
                shared = min(hi, cover[partner_slot[e]]) - lo + 1
                if shared > 0:
                    joint[partner_pair[e]] += shared
        cover[w] = hi
        if not listed[w]:
            listed[w] = True
            active[n_active] = w
            n_active += 1


@kernel
def context_sweep(
    first: int,
    stop: int,
    keys: np.ndarray,
    bits: int,
    positions: np.ndarray,
    word_offsets: np.ndarray,
    words: np.ndarray,
    doc_offsets: np.ndarray,
    partner_start: np.ndarray,
    partner_slot: np.ndarray,
    partner_pair: np.ndarray,
    half_width: int,
    marginal: np.ndarray,
    joint: np.ndarray,
) -> None:
    """Add the (centre, context) position pairs at distance ``1 .. c`` in the same document of the
    chunk ``keys[first:stop]``.

    Going through the stream, each word ``v`` keeps the index of its next occurrence (``seen``)
    and of its first occurrence still within ``c`` tokens in the same document (``near``): an
    occurrence of ``w`` at ``p`` meets ``seen[v] - near[v]`` occurrences of each partner ``v``
    before it, so a pair of positions (of two words, or of two occurrences of a word paired with
    itself) is counted once, by its later position. ``marginal`` (int64[m]) gets the context
    positions around each word's occurrences, ``min(p, c) + min(L - 1 - p, c)`` each, and
    ``joint`` (int64[n_pairs]) the unordered pairs.
    """
    if first == stop:
        return
    mask = (np.int64(1) << bits) - 1
    seen, d = _chunk_start(keys[first] >> bits, positions, word_offsets, words, doc_offsets)
    near = seen.copy()
    for k in range(first, stop):
        pos = keys[k] >> bits
        w = keys[k] & mask
        if pos >= doc_offsets[d + 1]:
            d = _advance(doc_offsets, d, pos)
        doc_start = doc_offsets[d]
        doc_end = doc_offsets[d + 1]
        marginal[w] += min(pos - doc_start, half_width) + min(doc_end - 1 - pos, half_width)
        low = max(pos - half_width, doc_start)
        for e in range(partner_start[w], partner_start[w + 1]):
            v = partner_slot[e]
            while near[v] < seen[v] and positions[near[v]] < low:
                near[v] += 1
            joint[partner_pair[e]] += seen[v] - near[v]
        seen[w] += 1
