"""Numba kernels of the models package: plain arrays in, plain arrays out."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from tealeaves.rng import categorical, stream


@njit(parallel=True, cache=True)
def gibbs_theta_fixed_phi(
    tokens: np.ndarray,
    offsets: np.ndarray,
    phi_t: np.ndarray,
    alpha: np.ndarray,
    burn_in: int,
    samples: int,
    seed: int,
) -> np.ndarray:
    """θ̂ per document by collapsed Gibbs sampling of z with Φ fixed (θ integrated out).

    ``phi_t`` is Φ transposed (V x K). Each document has its own random stream, so the
    result does not depend on the number of threads.
    """
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    alpha_sum = alpha.sum()
    theta = np.zeros((n_docs, k_topics))
    for d in prange(n_docs):
        state = stream(seed, d)
        start = offsets[d]
        n = offsets[d + 1] - start
        if n == 0:
            theta[d, :] = alpha / alpha_sum
            continue
        z = np.empty(n, dtype=np.int64)
        n_dk = np.zeros(k_topics)
        weights = np.empty(k_topics)
        for i in range(n):
            w = tokens[start + i]
            for k in range(k_topics):
                weights[k] = alpha[k] * phi_t[w, k]
            z[i] = categorical(weights, state)
            n_dk[z[i]] += 1.0
        for sweep in range(burn_in + samples):
            for i in range(n):
                w = tokens[start + i]
                n_dk[z[i]] -= 1.0
                for k in range(k_topics):
                    weights[k] = phi_t[w, k] * (n_dk[k] + alpha[k])
                z[i] = categorical(weights, state)
                n_dk[z[i]] += 1.0
            if sweep >= burn_in:
                for k in range(k_topics):
                    theta[d, k] += (n_dk[k] + alpha[k]) / (n + alpha_sum)
        for k in range(k_topics):
            theta[d, k] /= samples
    return theta
