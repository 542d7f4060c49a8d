"""``exact``: log P(w | Φ, αm) by summing over every topic assignment, for tiny documents.

P(w | Φ, αm) = Σ_z P(w | z, Φ) P(z | αm)   (eqs. 4-5, 8)

over all K^N assignments z. Since P(z | αm) depends on z only through its topic counts c,

P(w | Φ, αm) = Σ_c [Γ(α) / Γ(N + α) Π_t Γ(c_t + α m_t) / Γ(α m_t)] · S_N(c),
S_n(c) = Σ_{z_1..n with counts c} Π_{i<=n} φ_{w_i | z_i} = Σ_t S_{n-1}(c - e_t) φ_{w_n | t},

so the enumeration is organised over the C(N + K - 1, K - 1) count vectors a document of N
tokens can have, filled position by position (each step rescaled, the scale kept in log space).
The result is exact up to floating-point rounding. It is the reference the estimators are
tested against.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import gammaln, logsumexp

from tealeaves.errors import InputError
from tealeaves.likelihood.documents import as_documents, model_arrays
from tealeaves.models import TopicModel

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

MAX_WORK = 20_000_000  # candidate count vectors over all positions, K C(N + K, K): a few seconds
COUNT = np.uint32  # topic counts: N + 1 <= MAX_WORK / K < 2**32 for every admitted document (uint16 wrapped at 65,536)


def exact(phi: TopicModel | ArrayLike, alpha: ArrayLike | None, doc: ArrayLike) -> float:
    """log P(w | Φ, αm) of one document ``doc`` (token ids), exactly.

    Sums P(w | z, Φ) P(z | αm) over every topic assignment z, grouped by topic counts (see the
    module docstring for the recursion); exact up to floating-point rounding. It is the
    reference the estimators of :func:`estimate` are tested against.

    Parameters
    ----------
    phi : TopicModel or array-like of shape (K, V)
        Topic-word probabilities, strictly positive (a TopicModel also supplies αm).
    alpha : array-like of shape (K,) or None
        The asymmetric Dirichlet prior αm (None: the model's).
    doc : array-like of int
        The document's token ids.

    Returns
    -------
    float
        log P(w | Φ, αm), natural log.

    Raises
    ------
    InputError
        When the enumeration would need more than 20 million count-vector updates.

    Notes
    -----
    The work is K C(N + K, K) count-vector updates over all positions, at most 20 million
    (a few seconds): e.g. K = 2 and N <= 4,470, K = 3 and N <= 335, K = 4 and N <= 100,
    K = 20 and N <= 6, K = 50 and N <= 4. Longer documents get a clear error (use an estimator).

    Examples
    --------
    A one-token document has probability Σ_t m_t φ_{w|t} = 0.5 · 0.5 + 0.5 · 0.05 = 0.275:

    >>> import math
    >>> import numpy as np
    >>> from tealeaves.likelihood import exact
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> alpha = np.array([0.5, 0.5])
    >>> round(exact(phi, alpha, [0]), 4), round(math.log(0.275), 4)
    (-1.291, -1.291)
    >>> round(exact(phi, alpha, [0, 1, 3]), 4)
    -4.4812
    """
    phi, alpha, _ = model_arrays(phi, alpha, "exact enumeration")
    tokens = as_documents([doc], phi.shape[1]).tokens
    k_topics, n_tokens = phi.shape[0], len(tokens)
    work = k_topics * math.comb(n_tokens + k_topics, k_topics)
    if work > MAX_WORK:
        raise InputError(
            f"exact enumeration of a {n_tokens}-token document with {k_topics} topics needs {work:,} "
            f"topic-count vector updates (at most {MAX_WORK:,}); estimate it instead"
        )
    counts, values = np.zeros((1, k_topics), dtype=COUNT), np.ones(1)
    steps = np.eye(k_topics, dtype=COUNT)
    key = _count_key(n_tokens, k_topics)
    log_scale = 0.0
    for w in tokens:
        candidates = (counts[:, None, :] + steps[None, :, :]).reshape(-1, k_topics)
        weights = (values[:, None] * phi[None, :, w]).ravel()
        _, first, inverse = np.unique(key(candidates), return_index=True, return_inverse=True)
        # bincount with weights sums them as float64 (numpy's stubs type every bincount as intp)
        counts, values = candidates[first], np.asarray(np.bincount(inverse.ravel(), weights=weights), dtype=np.float64)
        top = values.max()
        values /= top
        log_scale += math.log(top)
    alpha_sum = alpha.sum()
    log_prior = (
        gammaln(alpha_sum) - gammaln(n_tokens + alpha_sum) + (gammaln(counts + alpha) - gammaln(alpha)).sum(axis=1)
    )
    positive = values > 0
    return float(log_scale + logsumexp(np.log(values[positive]) + log_prior[positive]))


def _count_key(n_tokens: int, k_topics: int) -> Callable[[np.ndarray], np.ndarray]:
    """Sortable keys of count vectors: integers in base N + 1 when they fit in 62 bits, else their bytes."""
    if k_topics * math.log2(n_tokens + 1) < 62:
        place = (n_tokens + 1) ** np.arange(k_topics, dtype=np.int64)
        return lambda counts: counts @ place
    width = k_topics * np.dtype(COUNT).itemsize
    return lambda counts: np.ascontiguousarray(counts).view(np.dtype((np.void, width))).ravel()
