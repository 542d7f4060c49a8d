"""Bag-of-words arrays for the kernels, and the topic-word statistics the EM-style trainers share.

The variational LDA, CTM and pLSI trainers all work on the document-term matrix (CSR:
``indptr``, ``indices``, ``counts``) and all need, for their M-step, expected topic-word counts
of the form n̂_kw = f_wk Σ_d (n_dw / z_dw) g_dk, with a per-document topic weight g, a
per-word topic factor f and a per-entry normaliser z (see :func:`topic_word_statistics`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from tealeaves.corpus import Corpus


class BagOfWords(NamedTuple):
    """The document-term counts as CSR arrays: float64 counts, int64 indices and indptr."""

    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    n_words: int

    @classmethod
    def of(cls, corpus: Corpus) -> BagOfWords:
        matrix = corpus.doc_term_matrix()
        matrix.sort_indices()
        return cls(
            np.asarray(matrix.indptr, dtype=np.int64),
            np.asarray(matrix.indices, dtype=np.int64),
            np.asarray(matrix.data, dtype=np.float64),
            matrix.shape[1],
        )

    @property
    def n_docs(self) -> int:
        return len(self.indptr) - 1

    def batch(self, first: int, stop: int) -> BagOfWords:
        """Documents ``first`` to ``stop - 1`` (a slice of the arrays, ``indptr`` rebased)."""
        start, end = self.indptr[first], self.indptr[stop]
        return BagOfWords(
            self.indptr[first : stop + 1] - start, self.indices[start:end], self.counts[start:end], self.n_words
        )

    def rows(self, docs: np.ndarray) -> BagOfWords:
        """The documents ``docs`` (in that order) as a new bag of words."""
        matrix = sp.csr_matrix((self.counts, self.indices, self.indptr), shape=(self.n_docs, self.n_words))[docs]
        return BagOfWords(
            np.asarray(matrix.indptr, dtype=np.int64),
            np.asarray(matrix.indices, dtype=np.int64),
            np.asarray(matrix.data, dtype=np.float64),
            self.n_words,
        )


def topic_word_statistics(
    bow: BagOfWords, doc_weights: np.ndarray, normalisers: np.ndarray, word_factors_t: np.ndarray
) -> np.ndarray:
    """n̂_kw = f_wk Σ_d (n_dw / z_dw) g_dk (K x V) from g = ``doc_weights`` (D x K),
    z = ``normalisers`` (one per stored entry) and f = ``word_factors_t`` (V x K)."""
    ratios = sp.csr_matrix((bow.counts / normalisers, bow.indices, bow.indptr), shape=(bow.n_docs, bow.n_words))
    return np.ascontiguousarray((np.asarray(ratios.T @ doc_weights) * word_factors_t).T)
