"""Window counts of a few words from their occurrences, in numpy (no compiler, nothing to load).

A word's windows are a union of runs of consecutive *global window numbers* (window ``t`` of
document ``d`` is number ``window_offsets[d] + t``): each occurrence marks a run, and the runs
of a word's occurrences, in position order, are cut into disjoint *pieces* by removing what
earlier runs already hold (:func:`window_pieces`). A word's marginal count is the length of
its pieces; a pair's joint count is the length of the intersection of the two words' pieces,
found by looking each piece of the word with fewer pieces up in the other's (:func:`overlaps`).
±c context windows count position pairs the same way: a word's pieces are its positions, and
the other word's items are the ranges ``p - c .. p + c`` around its occurrences, cut at the
document's ends.

This is the count of :mod:`tealeaves.coherence._kernels`' numba sweep, exact and equal to it,
about four times slower per occurrence (a binary search per item and pair where the sweep
steps through the occurrences once) but with nothing to compile or load: up to
:data:`NUMPY_MAX_OCCURRENCES` occurrences of the words asked about (20 Newsgroups' 50 topics x
top 10: 415,000 occurrences, about 0.2 CPU seconds) it finishes before numba would have started
(0.7 CPU seconds to import numba and load a cached kernel), so a ``tealeaves coherence`` process
on an index of that size never loads numba; a process that goes on counting moves to the sweep
(:func:`counts_here`).
"""

from __future__ import annotations

import numpy as np

# how an occurrence maps to the windows it marks (see window_pieces)
SLIDING = 0  # boolean sliding windows, max(1, L - s + 1) per document, exact
GENSIM = 1  # the same windows as gensim 4.x's WordOccurrenceAccumulator flags them
LAU = 2  # Lau et al.'s padded windows: L + s - 1 per document
DOCUMENT = 3  # the whole document is one window

NUMPY_MAX_OCCURRENCES = 1_000_000  # up to this many occurrences, counts are made here rather than by the numba sweep
NUMPY_BUDGET = 2_000_000  # occurrences a process counts here before the sweep, loaded once, is the cheaper
_numpy_counted = 0  # occurrences counted here by this process so far


def counts_here(n: int) -> bool:
    """Whether ``n`` occurrences are counted here rather than by the numba sweep, and if so, count them
    against this process's budget.

    A single count of up to :data:`NUMPY_MAX_OCCURRENCES` is made here: numpy finishes it before
    numba would have started. A process that has counted :data:`NUMPY_BUDGET` occurrences here
    (a session or a sweep scoring again and again: on 20 Newsgroups, the third NPMI and C_V of 50
    topics) moves to the sweep, whose load (0.6 CPU seconds, once) it has then earned back: 0.13
    CPU seconds a call there against 0.43 here. Either way the counts are the same, exactly.
    """
    global _numpy_counted
    if n > NUMPY_MAX_OCCURRENCES or _numpy_counted + n > NUMPY_BUDGET:
        return False
    _numpy_counted += n
    return True


def gather_occurrences(
    positions: np.ndarray, word_offsets: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The occurrences of ``words``, word after word: ``(positions int64[n], offsets int64[m + 1])``.

    Word ``words[i]`` occurs at ``positions[offsets[i]:offsets[i + 1]]``, in increasing order.
    """
    first = np.asarray(word_offsets[words], dtype=np.int64)
    counts = np.asarray(word_offsets[words + 1], dtype=np.int64) - first
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return np.asarray(positions[_ranges(first, counts)], dtype=np.int64), offsets


def window_counts(
    occurrences: np.ndarray,
    offsets: np.ndarray,
    doc_offsets: np.ndarray,
    window_offsets: np.ndarray,
    mode: int,
    size: int,
    left: np.ndarray,
    right: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Windows holding each word (``marginal``, int64[m]) and each pair ``(left[k], right[k])`` (``joint``).

    ``occurrences`` and ``offsets`` come from :func:`gather_occurrences`; ``window_offsets``
    numbers the windows of each document (int64[D + 1]); ``mode`` and ``size`` are as in
    :func:`window_pieces`.
    """
    span = int(window_offsets[-1]) + 2
    starts, ends, piece_offsets = window_pieces(occurrences, offsets, doc_offsets, window_offsets, mode, size, span)
    return _sums(ends - starts + 1, piece_offsets), overlaps(
        starts, ends, starts, ends, piece_offsets, span, left, right
    )


def context_counts(
    occurrences: np.ndarray,
    offsets: np.ndarray,
    doc_offsets: np.ndarray,
    half_width: int,
    left: np.ndarray,
    right: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(centre, context) position pairs at distance ``1 .. c`` in the same document.

    Returns ``marginal`` (int64[m]: the context positions around each word's occurrences,
    ``min(p, c) + min(L - 1 - p, c)`` each) and ``joint`` (int64[n_pairs]: pairs of positions
    of the two words; for a word paired with itself, ordered pairs of two of its occurrences).
    """
    doc = np.searchsorted(doc_offsets, occurrences, side="right") - 1
    doc_start, doc_end = doc_offsets[doc], doc_offsets[doc + 1]
    reach = np.minimum(occurrences - doc_start, half_width) + np.minimum(doc_end - 1 - occurrences, half_width)
    span = int(doc_offsets[-1]) + 2
    shift = _keys(offsets, span)
    points = occurrences + shift
    near_lo = np.maximum(occurrences - half_width, doc_start) + shift
    near_hi = np.minimum(occurrences + half_width, doc_end - 1) + shift
    joint = overlaps(points, points, near_lo, near_hi, offsets, span, left, right)
    same = left == right
    joint[same] -= np.diff(offsets)[left[same]]  # an occurrence is not its own context
    return _sums(reach, offsets), joint


def window_pieces(
    occurrences: np.ndarray,
    offsets: np.ndarray,
    doc_offsets: np.ndarray,
    window_offsets: np.ndarray,
    mode: int,
    size: int,
    span: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The windows of each word as disjoint pieces ``starts[j] .. ends[j]``, word after word.

    An occurrence at position ``p`` of a document with ``T`` windows (window ``t`` covers
    positions ``t .. t + s - 1``; Lau's window ``t`` covers ``t - s + 1 .. t``) marks the windows

    - SLIDING: ``max(0, p - s + 1) .. min(p, T - 1)``;
    - LAU: ``p .. p + s - 1``;
    - DOCUMENT: window 0;
    - GENSIM: gensim's ``_slide_window`` clears a word's flag when the token leaving the window
      is that word, even if a later occurrence is still inside: window ``t`` is flagged iff its
      last occurrence ``q`` and the last occurrence ``r`` before ``t`` satisfy ``q - r >= s``
      (or there is none before ``t``). Giving each flagged window to its last occurrence
      ``o_i``, occurrence ``i`` flags ``max(0, o_i - s + 1) .. min(f_i, o_{i+1} - s, T - 1)``,
      ``f_i`` being the first occurrence at or after ``o_i - s + 1``.

    The first marked window never decreases along a word's occurrences, so occurrence ``i``'s
    new windows start after the last window marked before it (a running maximum). Window
    numbers are keyed by word, ``slot * span + 1 + window`` (``span`` at least the number of
    windows plus 2), so that one sorted array holds every word's pieces; ``piece_offsets``
    (int64[m + 1]) delimits each word's.
    """
    doc = np.searchsorted(doc_offsets, occurrences, side="right") - 1
    doc_start = doc_offsets[doc]
    p = occurrences - doc_start
    base = window_offsets[doc]
    last_window = window_offsets[doc + 1] - base - 1
    if mode == SLIDING:
        first, last = np.maximum(p - size + 1, 0), np.minimum(p, last_window)
    elif mode == LAU:
        first, last = p, p + size - 1
    elif mode == DOCUMENT:
        first = last = np.zeros_like(p)
    else:
        first = np.maximum(p - size + 1, 0)
        position_keys = _keys(offsets, int(doc_offsets[-1]) + 2)
        reach = np.searchsorted(occurrences + position_keys, doc_start + first + position_keys, side="left")
        last = np.minimum(occurrences[reach] - doc_start, last_window)
        later = np.roll(occurrences, -1)  # the next occurrence, when it is of the same word and document
        word_end = np.repeat(offsets[1:], np.diff(offsets))
        following = (np.arange(len(occurrences)) + 1 < word_end) & (later < doc_offsets[doc + 1])
        last[following] = np.minimum(last[following], later[following] - doc_start[following] - size)
    shift = _keys(offsets, span) + base
    first, last = first + shift, last + shift
    covered = np.empty_like(last)
    covered[:1] = -1
    np.maximum.accumulate(last[:-1], out=covered[1:])
    first = np.maximum(first, covered + 1)
    kept = first <= last
    piece_offsets = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(_sums(kept, offsets), out=piece_offsets[1:])
    return first[kept], last[kept], piece_offsets


def overlaps(
    starts: np.ndarray,
    ends: np.ndarray,
    item_starts: np.ndarray,
    item_ends: np.ndarray,
    offsets: np.ndarray,
    span: int,
    left: np.ndarray,
    right: np.ndarray,
) -> np.ndarray:
    """For each pair ``(left[k], right[k])``: Σ over one word's items of their overlap with the other's pieces.

    Word ``i`` has the disjoint pieces ``starts[j] .. ends[j]`` and the items ``item_starts[j] ..
    item_ends[j]`` for ``j`` in ``offsets[i] .. offsets[i + 1] - 1`` (keyed by word as in
    :func:`window_pieces`). The sum is symmetric, so the items of the word with fewer are looked
    up in the pieces of the other, one word's pieces at a time (a binary search in an array that
    stays in the CPU's cache): ``covered(t)``, the length of the pieces before ``t``, is
    ``min(t + before_key[k], through[k])`` for the last piece ``k`` starting before ``t``, and an
    item ``a .. b`` overlaps ``covered(b + 1) - covered(a)`` of them.
    """
    count = np.diff(offsets)
    length = ends - starts + 1
    through_all = np.cumsum(length)  # covered up to the end of each piece, from the first word's first
    swap = count[left] > count[right]
    items, looked_up = np.where(swap, right, left), np.where(swap, left, right)
    order = np.argsort(looked_up, kind="stable")
    first_pair = np.searchsorted(looked_up[order], np.arange(len(offsets)))
    joint = np.zeros(len(left), dtype=np.int64)
    for word in np.flatnonzero(np.diff(first_pair)):
        pairs = order[first_pair[word] : first_pair[word + 1]]
        lo, hi = offsets[word], offsets[word + 1]
        keys = starts[lo:hi]
        through = np.concatenate([[0], through_all[lo:hi] - (through_all[lo - 1] if lo else 0)])
        before_key = np.concatenate([[0], through[1:] - length[lo:hi] - keys])  # index 0: before the first piece
        other = items[pairs]
        n_items = count[other]
        which = _ranges(offsets[other], n_items)
        shift = np.repeat((word - other) * span, n_items)
        a, b = item_starts[which] + shift, item_ends[which] + shift + 1
        k_a, k_b = np.searchsorted(keys, a, side="right"), np.searchsorted(keys, b, side="right")
        overlap = np.minimum(b + before_key[k_b], through[k_b]) - np.minimum(a + before_key[k_a], through[k_a])
        joint[pairs] = _sums(overlap, np.concatenate([[0], np.cumsum(n_items)]))
    return joint


def _sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``values[offsets[i]:offsets[i + 1]].sum()`` for each ``i`` (int64)."""
    total = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=total[1:])
    return total[offsets[1:]] - total[offsets[:-1]]


def _keys(offsets: np.ndarray, span: int) -> np.ndarray:
    """``slot * span + 1`` for every item of each slot (``offsets`` delimits the slots' items): added
    to values in ``0 .. span - 2``, it sorts all slots' values in one array, behind ``slot * span``."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64) * span + 1, np.diff(offsets))


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` without a Python loop."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64) + np.repeat(starts - ends + counts, counts)
