"""Maximum-likelihood Dirichlet parameters from expected log proportions (Minka 2000).

Variational EM for LDA learns its Dirichlet prior α by maximising
Σ_d [log Γ(Σ_k α_k) - Σ_k log Γ(α_k) + Σ_k (α_k - 1) E[log θ_dk]] (Blei et al. 2003, Appendix
A.4.2), which depends on the documents only through the mean of E[log θ_dk] over documents.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, polygamma

from tealeaves.errors import InputError


def inverse_digamma(y: np.ndarray, iterations: int = 5) -> np.ndarray:
    """x with ψ(x) = y, by Newton's method from Minka's (2000, Appendix C) starting point."""
    y = np.asarray(y, dtype=np.float64)
    x = np.where(y >= -2.22, np.exp(y) + 0.5, -1.0 / (y - digamma(1.0)))
    for _ in range(iterations):
        x = x - (digamma(x) - y) / polygamma(1, x)
    return x


def dirichlet_mle(mean_log: np.ndarray, alpha: np.ndarray, max_iter: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """The Dirichlet α maximising Σ_d log Dir(θ_d | α) given ``mean_log`` = mean_d E[log θ_dk].

    Minka's (2000, eq. 9) fixed-point iteration α_k <- ψ⁻¹(ψ(Σ_j α_j) + mean_log_k) from
    ``alpha``, until no α_k changes by more than ``tol`` relative to its value.
    """
    mean_log = np.asarray(mean_log, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64).copy()
    if mean_log.shape != alpha.shape or not np.all(np.isfinite(mean_log)) or np.any(mean_log >= 0):
        raise InputError("mean log proportions must be finite, negative and one per topic")
    for _ in range(max_iter):
        new = inverse_digamma(digamma(alpha.sum()) + mean_log)
        done = np.max(np.abs(new - alpha) / alpha) < tol
        alpha = new
        if done:
            break
    return alpha
