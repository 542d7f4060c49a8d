"""Word association features of a word-intrusion set (Lau, Newman & Baldwin 2014, §4.1).

For each word ``w_i`` of a set of N words (Lau et al.: N = 6, "the number of topic words
displayed ... including the intruder word") and the other words ``w_j`` of the set:

    PMI(w_i)  = sum_{j != i} log( P(w_i, w_j) / (P(w_i) P(w_j)) )
    NPMI(w_i) = sum_{j != i} log( P(w_i, w_j) / (P(w_i) P(w_j)) ) / -log P(w_i, w_j)   (Bouma 2009)
    CP1(w_i)  = sum_{j != i} P(w_i, w_j) / P(w_j)      (= sum_j P(w_i | w_j))
    CP2(w_i)  = sum_{j != i} P(w_i, w_j) / P(w_i)      (= sum_j P(w_j | w_i))

(Lau et al. 2014, §4.1, the equations for PMI, CP1, CP2 and NPMI, after Lau et al. 2010).
Probabilities are window frequencies in the reference corpus: ``P(w) = n(w) / N_win`` and
``P(w_i, w_j) = n(w_i, w_j) / N_win`` with ``n`` the number of sliding windows holding the
word(s) and ``N_win`` the number of windows (:meth:`RefIndex.pair_counts`; ``window=20``
tokens by default, the size Lau et al.'s toolkit uses; ``compat="lau"`` counts the toolkit's
padded windows). Logarithms are natural; the base does not matter after normalisation.

Zero counts follow Lau et al.'s toolkit (``GenSVMInput.py``): a pair that never co-occurs
(``n(w_i, w_j) = 0``, which includes a word that never occurs) contributes 0 to PMI and NPMI,
and a conditional probability whose condition never occurs is 0. A pair in every window
(``P(w_i, w_j) = 1``) has NPMI 1, its limit (the toolkit divides by zero there).

Each feature is then min-max normalised within the set, ``(f - min) / (max - min)`` over
its N words, so that sets from frequent and rare words are comparable (Lau et al.'s toolkit
normalises within each set too). A feature that is equal for all N words is set to 0: it
cannot order the words of its set, and a ranking SVM only sees differences within a set.

Lau et al.'s toolkit feeds the per-pair values (15 features ordered by the words' positions
in the list) to SVM-rank; tealeaves uses the sums of the paper's equations, one feature per
measure, which do not depend on the order in which the words are shown.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from tealeaves.coherence import RefIndex, Window
from tealeaves.coherence.scoring import NEVER_OCCURS, NOT_IN_VOCABULARY
from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError
from tealeaves.intrusion.intruders import IntruderSets
from tealeaves.missing import ZERO, OnMissingZero, check_on_missing

Association = Literal["pmi", "npmi"]
ASSOCIATIONS: tuple[Association, ...] = ("pmi", "npmi")
"""The association measures of WI-Auto: ``pmi`` (WI-Auto-PMI) and ``npmi`` (WI-Auto-NPMI)."""
FEATURES: tuple[str, ...] = ("pmi", "npmi", "cp1", "cp2")
"""The word association features, in the order of the last axis of :attr:`SetFeatures.raw`
(formulas in the module docstring)."""
__getattr__ = moved_names(__name__, {"ON_MISSING": "tealeaves.missing.ZERO"})
LAU_WINDOW = 20  # Lau et al.'s toolkit: ComputeWordCount.py's default window size


@dataclass(frozen=True)
class SetFeatures:
    """Window counts and association features of word-intrusion sets.

    Attributes
    ----------
    words : tuple of tuple of str
        The S sets' words in display order (n words each).
    marginal : int64[S, n]
        Windows holding each word.
    joint : int64[S, n, n]
        Windows holding both words (the diagonal is ``marginal``).
    n_windows : int
        Windows in the reference corpus.
    raw : float64[S, n, 4]
        PMI, NPMI, CP1 and CP2 of each word against the others of its set (:data:`FEATURES`).
    normalized : float64[S, n, 4]
        The same, min-max normalised within each set.
    window, compat : str, str or None
        How windows were counted.
    missing : tuple of (set, word, reason)
        Words not in the index vocabulary or never in the reference corpus (counted as 0).

    Examples
    --------
    A topic's words that occur together in 3 of 9 documents, and an intruder that never
    occurs with them:

    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.intrusion import word_association_features
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> features = word_association_features([["tax", "budget", "deficit", "war"]], index, window="document")
    >>> features.marginal, features.n_windows
    (array([[3, 3, 3, 3]]), 9)
    >>> features.raw[0].round(4)  # PMI of "tax" = 2 log(3 · 9 / (3 · 3)) = 2 log 3
    array([[2.1972, 2.    , 2.    , 2.    ],
           [2.1972, 2.    , 2.    , 2.    ],
           [2.1972, 2.    , 2.    , 2.    ],
           [0.    , 0.    , 0.    , 0.    ]])
    >>> features.matrix("npmi")[0, :, 0]  # normalised NPMI, CP1, CP2: the columns a ranker sees
    array([1., 1., 1., 0.])
    """

    words: tuple[tuple[str, ...], ...]
    marginal: np.ndarray
    joint: np.ndarray
    n_windows: int
    raw: np.ndarray
    normalized: np.ndarray
    window: str
    compat: str | None
    missing: tuple[tuple[int, str, str], ...]

    def matrix(self, association: Association) -> np.ndarray:
        """The normalised features a ranker sees: float64[S, n, 3], (PMI or NPMI, CP1, CP2).

        WI-Auto-PMI uses PMI + CP1 + CP2 and WI-Auto-NPMI NPMI + CP1 + CP2 (Lau et al. 2014,
        footnote 4).
        """
        check_association(association)
        return self.normalized[:, :, [FEATURES.index(association), FEATURES.index("cp1"), FEATURES.index("cp2")]]


def check_association(association: str) -> None:
    """Refuse anything but ``"pmi"`` and ``"npmi"``."""
    if association not in ASSOCIATIONS:
        raise InputError(f"association must be 'pmi' or 'npmi' (WI-Auto-PMI, WI-Auto-NPMI), got {association!r}")


def word_association_features(
    sets: IntruderSets | Sequence[Sequence[str]],
    index: RefIndex | str | os.PathLike[str],
    window: Window | int | str = LAU_WINDOW,
    compat: str | None = None,
    on_missing: OnMissingZero = "error",
) -> SetFeatures:
    """Count every set's words and pairs in the reference index and compute their features.

    Parameters
    ----------
    sets : IntruderSets or list of word lists
        The sets (each of at least two distinct words, all of one length).
    index : RefIndex or path
        The reference corpus' index.
    window : int or str
        Sliding window size (default 20, Lau et al.'s toolkit) or ``"document"``.
    compat : None, "lau" or "gensim"
        ``"lau"`` counts Lau et al.'s padded windows (``L + s - 1`` per document); see
        :meth:`RefIndex.window_counts`.
    on_missing : "error" or "zero"
        A word not in the index vocabulary, or never in the reference corpus, is refused or
        counted as never occurring (all its pairs then contribute 0, by the toolkit's
        conventions). There is no "skip": a set without one of its words is no longer the
        question that was asked.

    Returns
    -------
    SetFeatures

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.intrusion import word_association_features
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> features = word_association_features([["tax", "budget", "war"]], index, window="document")
    >>> features.raw[0].round(4)  # PMI, NPMI, CP1, CP2; "tax" and "budget" share 3 of 9 documents
    array([[1.0986, 1.    , 1.    , 1.    ],
           [1.0986, 1.    , 1.    , 1.    ],
           [0.    , 0.    , 0.    , 0.    ]])
    >>> features.normalized[0, :, 0]  # min-max within the set
    array([1., 1., 0.])
    """
    check_on_missing(on_missing, ZERO)
    if not isinstance(index, RefIndex):
        index = RefIndex.load(index)
    parsed = Window.parse(window)
    if parsed.kind == "context":
        raise InputError("word-intrusion features count sliding or document windows, not ±c context windows")
    words = _set_words(sets)
    slots, unique, missing = _lookup(words, index, on_missing)
    marginal, joint, n_windows = _count(slots, unique, index, parsed, compat)
    raw = association_sums(marginal, joint, n_windows)
    return SetFeatures(
        words=words,
        marginal=marginal,
        joint=joint,
        n_windows=n_windows,
        raw=raw,
        normalized=min_max_within_sets(raw),
        window=str(parsed),
        compat=compat,
        missing=missing,
    )


def association_sums(marginal: np.ndarray, joint: np.ndarray, n_windows: int) -> np.ndarray:
    """PMI, NPMI, CP1 and CP2 sums of every word of every set (see the module docstring).

    For word w_i and the other words w_j of its set, with P from window counts:
    PMI = Σ_j log(P(w_i, w_j) / (P(w_i) P(w_j))), NPMI = Σ_j PMI_ij / -log P(w_i, w_j),
    CP1 = Σ_j P(w_i, w_j) / P(w_j), CP2 = Σ_j P(w_i, w_j) / P(w_i) (Lau et al. 2014, §4.1); a
    pair never seen together contributes 0.

    Parameters
    ----------
    marginal : array-like of shape (S, n)
        Windows holding each word of each set.
    joint : array-like of shape (S, n, n)
        Windows holding both words of each pair (the diagonal is not used).
    n_windows : int
        Windows in the reference corpus.

    Returns
    -------
    ndarray of shape (S, n, 4)
        PMI, NPMI, CP1 and CP2 (:data:`FEATURES`) of every word.

    Examples
    --------
    Two words in the same 3 of 9 windows and a third word in another window:

    >>> import numpy as np
    >>> from tealeaves.intrusion import association_sums
    >>> joint = np.array([[[3, 3, 0], [3, 3, 0], [0, 0, 1]]])
    >>> association_sums(np.array([[3, 3, 1]]), joint, 9).round(4)  # log(3 · 9 / (3 · 3)) = log 3
    array([[[1.0986, 1.    , 1.    , 1.    ],
            [1.0986, 1.    , 1.    , 1.    ],
            [0.    , 0.    , 0.    , 0.    ]]])
    """
    n_i = np.asarray(marginal, dtype=np.float64)[:, :, None]  # the word w_i (rows)
    n_j = np.asarray(marginal, dtype=np.float64)[:, None, :]  # the other word w_j (columns)
    n_ij = np.asarray(joint, dtype=np.float64)
    others = ~np.eye(n_ij.shape[1], dtype=bool)[None, :, :]
    seen = (n_ij > 0) & others
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.where(seen, np.log(n_ij * n_windows / (n_i * n_j)), 0.0)
        log_joint = np.log(n_ij / n_windows)
        npmi = np.where(seen, np.where(n_ij >= n_windows, 1.0, pmi / -log_joint), 0.0)
        cp1 = np.where(seen, n_ij / n_j, 0.0)
        cp2 = np.where(seen, n_ij / n_i, 0.0)
    return np.stack([pmi.sum(axis=2), npmi.sum(axis=2), cp1.sum(axis=2), cp2.sum(axis=2)], axis=-1)


def min_max_within_sets(values: np.ndarray) -> np.ndarray:
    """``(v - min) / (max - min)`` over axis 1 (the words of a set); 0 where max == min.

    A feature equal for all words of a set cannot order them, so it is 0 there.

    Parameters
    ----------
    values : ndarray of shape (S, n, F)
        Features of the n words of S sets.

    Returns
    -------
    ndarray of shape (S, n, F)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.intrusion import min_max_within_sets
    >>> min_max_within_sets(np.array([[[1.0], [3.0], [2.0]], [[5.0], [5.0], [5.0]]]))[:, :, 0]
    array([[0. , 1. , 0.5],
           [0. , 0. , 0. ]])
    """
    low = values.min(axis=1, keepdims=True)
    span = values.max(axis=1, keepdims=True) - low
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(span > 0, (values - low) / span, 0.0)


def _set_words(sets: IntruderSets | Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    words = tuple(s.words for s in sets) if isinstance(sets, IntruderSets) else tuple(tuple(map(str, s)) for s in sets)
    if not words:
        raise InputError("no word-intrusion sets given")
    sizes = {len(s) for s in words}
    if len(sizes) != 1 or min(sizes) < 2:
        raise InputError(f"every set needs the same number (at least 2) of words; got sizes {sorted(sizes)}")
    for i, s in enumerate(words):
        if len(set(s)) != len(s):
            raise InputError(f"set {i} lists a word twice ({' '.join(s)})")
    return words


def _lookup(
    words: tuple[tuple[str, ...], ...], index: RefIndex, on_missing: str
) -> tuple[np.ndarray, np.ndarray, tuple[tuple[int, str, str], ...]]:
    """Each word's slot among the distinct usable index ids (-1: counted as 0), and what is missing."""
    ids = np.array([[index.vocab.get(w) for w in s] for s in words], dtype=np.int64)
    frequency = index.frequency(np.maximum(ids, 0).ravel()).reshape(ids.shape)
    usable = (ids >= 0) & (frequency > 0)
    missing = tuple(
        (int(i), words[i][j], NOT_IN_VOCABULARY if ids[i, j] < 0 else NEVER_OCCURS)
        for i, j in zip(*np.nonzero(~usable))
    )
    if missing and on_missing == "error":
        shown = "; ".join(f"{w!r} ({why})" for w, why in sorted({(w, why) for _, w, why in missing})[:10])
        raise InputError(
            f"{len({w for _, w, _ in missing})} word(s) of the intrusion sets are missing from the reference index: "
            f"{shown}. Prepare the reference corpus with vocab_from=<the training corpus>, or pass "
            'on_missing="zero" to count them as never occurring'
        )
    unique, inverse = np.unique(np.where(usable, ids, -1), return_inverse=True)
    slots = inverse.reshape(ids.shape) - (1 if len(unique) and unique[0] < 0 else 0)
    slots[~usable] = -1
    return slots, unique[unique >= 0], missing


def _count(
    slots: np.ndarray, unique: np.ndarray, index: RefIndex, window: Window, compat: str | None
) -> tuple[np.ndarray, np.ndarray, int]:
    """Window counts of every set's words and pairs, from one pass over the distinct pairs."""
    n_sets, n = slots.shape
    a, b = np.triu_indices(n, k=1)
    left, right = np.minimum(slots[:, a], slots[:, b]), np.maximum(slots[:, a], slots[:, b])
    known = left >= 0
    pairs, which = np.unique(np.stack([left[known], right[known]], axis=1), axis=0, return_inverse=True)
    if len(unique):
        marginal_u, joint_u, n_windows = index.pair_counts(unique, pairs[:, 0], pairs[:, 1], window, compat)
    else:
        marginal_u, joint_u, n_windows = np.zeros(0, np.int64), np.zeros(0, np.int64), index.n_windows(window, compat)
    marginal = np.append(np.asarray(marginal_u, dtype=np.int64), 0)[slots]  # slot -1 picks the appended 0
    pair_joint = np.zeros((n_sets, len(a)), dtype=np.int64)
    pair_joint[known] = np.asarray(joint_u, dtype=np.int64)[np.ravel(which)]
    joint = np.zeros((n_sets, n, n), dtype=np.int64)
    joint[:, a, b] = pair_joint
    joint[:, b, a] = pair_joint
    joint[:, np.arange(n), np.arange(n)] = marginal
    return marginal, joint, int(n_windows)
