"""Tiny random LDA models and reference computations written independently of the package."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np


def tiny_model(k: int, v: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Φ with rows ~ Dir(1) (floored, renormalised) and an asymmetric αm with entries on both sides of 1."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.ones(v), size=k) + 0.01
    phi /= phi.sum(axis=1, keepdims=True)
    alpha = rng.gamma(1.0, 0.6, size=k) + np.linspace(0.05, 1.5, k)
    return phi, alpha


def peaked_model(k: int, v: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Topics concentrated on few words (rows ~ Dir(0.05), smoothed), as trained topics are."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(v, 0.05), size=k) + 1e-4
    phi /= phi.sum(axis=1, keepdims=True)
    return phi, rng.gamma(1.0, 0.3, size=k) + 0.05


def tiny_doc(v: int, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed + 1000).integers(0, v, size=n)


# Four models: K <= 4, N <= 6, asymmetric alpha
CASES = [
    (2, 5, 6, 11),  # K, V, N, seed
    (3, 6, 5, 12),
    (4, 4, 6, 13),
    (4, 7, 4, 14),
]


def case(index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k, v, n, seed = CASES[index]
    phi, alpha = tiny_model(k, v, seed)
    return phi, alpha, tiny_doc(v, n, seed)


def brute_force_log_prob(phi: np.ndarray, alpha: np.ndarray, doc: np.ndarray) -> float:
    """Σ over all K^N assignments z of P(w | z, Φ) P(z | αm), P(z | αm) as the product of Pólya-urn predictives."""
    k, n_tokens = len(alpha), len(doc)
    z = np.indices((k,) * n_tokens).reshape(n_tokens, -1).T  # every assignment, one per row
    p = np.ones(len(z))
    for n in range(n_tokens):
        earlier = (z[:, :n] == z[:, n : n + 1]).sum(axis=1)
        p *= (earlier + alpha[z[:, n]]) / (n + alpha.sum()) * phi[z[:, n], doc[n]]
    return math.log(p.sum())


def particle_limit(phi: np.ndarray, alpha: np.ndarray, doc: np.ndarray, resample: bool) -> tuple[float, float]:
    """The R -> infinity limit of the left-to-right product of per-position particle averages.

    Enumerates the exact law q of one particle's z_<n: sequential draws z_n ~ P(z_n | w_n, z_<n),
    preceded (``resample``) by one Gibbs sweep over positions 1..n-1 given w_<n. Returns
    (Σ_n log E_q[p_n], Σ_n Var_q[p_n] / E_q[p_n]^2): with R particles E[log P̂] is about
    limit - (second value) / (2R) by the delta method.
    """
    k = len(alpha)
    f = phi[:, doc].T
    dist: dict[tuple[int, ...], float] = {(): 1.0}
    limit = 0.0
    squared_cv = 0.0
    for n in range(len(doc)):
        if resample:
            for i in range(n):
                swept: dict[tuple[int, ...], float] = defaultdict(float)
                for z, p in dist.items():
                    counts = np.bincount(z[:i] + z[i + 1 :], minlength=k)
                    weights = f[i] * (counts + alpha)
                    weights /= weights.sum()
                    for t in range(k):
                        swept[(*z[:i], t, *z[i + 1 :])] += p * weights[t]
                dist = swept
        mean = 0.0
        second = 0.0
        extended: dict[tuple[int, ...], float] = defaultdict(float)
        for z, p in dist.items():
            weights = f[n] * (np.bincount(z, minlength=k) + alpha)
            p_n = weights.sum() / (n + alpha.sum())
            mean += p * p_n
            second += p * p_n * p_n
            for t in range(k):
                extended[(*z, t)] += p * weights[t] / weights.sum()
        limit += math.log(mean)
        squared_cv += second / mean**2 - 1.0
        dist = extended
    return limit, squared_cv


def skewed_model(k: int, v: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Φ with rows ~ Dir(1) (floored) and αm with entries log-uniform on [0.03, 3]: strongly skewed priors."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.ones(v), size=k) + 0.01
    phi /= phi.sum(axis=1, keepdims=True)
    return phi, np.exp(rng.uniform(math.log(0.03), math.log(3.0), size=k))


def gibbs_laws(phi: np.ndarray, alpha: np.ndarray, doc: np.ndarray, sweeps: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """The exact law of the kernels' Gibbs chain on ``doc``, by enumerating all K^N assignments.

    The chain starts from sequential draws z_n ~ P(z_n | w_n, z_<n) and then applies forward
    sweeps of eq. 7 (positions 1..N). Returns (Z, laws): Z holds every assignment (K^N x N) and
    laws[j] the probability of each row of Z after j sweeps, j = 0..``sweeps``.
    """
    k, n_tokens = len(alpha), len(doc)
    f = phi[:, doc].T  # N x K
    z = np.indices((k,) * n_tokens).reshape(n_tokens, -1).T
    counts = np.stack([(z == t).sum(axis=1) for t in range(k)], axis=1)  # K^N x K
    law = np.ones(len(z))
    for n in range(n_tokens):
        earlier = np.stack([(z[:, :n] == t).sum(axis=1) for t in range(k)], axis=1) + alpha
        weights = f[n] * earlier
        law *= weights[np.arange(len(z)), z[:, n]] / weights.sum(axis=1)
    laws = [law]
    shape = (k,) * n_tokens
    for _ in range(sweeps):
        for n in range(n_tokens):
            others = counts - (z[:, n : n + 1] == np.arange(k)) + alpha  # N_t without position n, plus αm
            weights = f[n] * others
            conditional = weights[np.arange(len(z)), z[:, n]] / weights.sum(axis=1)
            marginal = law.reshape(shape).sum(axis=n, keepdims=True)  # P(z_-n)
            law = (np.broadcast_to(marginal, shape).reshape(-1) * conditional).copy()
        laws.append(law)
    return z, laws


def estimated_theta_moments(
    phi: np.ndarray, alpha: np.ndarray, observed: np.ndarray, held: np.ndarray, burn_in: int, samples: int
) -> tuple[float, float]:
    """The mean of the estimated-θ P̂(w2 | w1) (eq. 27) and a bound on its standard deviation.

    The kernel's Gibbs chain on w1 (sequential draws, then sweeps) has the exact law q_j of
    :func:`gibbs_laws` after j sweeps; P̂ averages g(z) = Π_{n in w2} Σ_t φ_{w_n|t} θ̂_t(z),
    θ̂_t(z) = (N_t + α m_t) / (N^(1) + α), over the states after sweeps B+1..B+S, so
    E[P̂] = (1/S) Σ_s E_{q_{B+s}}[g] and sd[P̂] <= (1/S) Σ_s sd_{q_{B+s}}[g] (Cauchy-Schwarz).
    """
    z, laws = gibbs_laws(phi, alpha, observed, burn_in + samples)
    counts = np.stack([(z == t).sum(axis=1) for t in range(len(alpha))], axis=1)
    theta = (counts + alpha) / (len(observed) + alpha.sum())
    g = np.prod(theta @ phi[:, held], axis=1)
    recorded = laws[burn_in + 1 :]
    mean = float(np.mean([law @ g for law in recorded]))
    return mean, float(np.mean([math.sqrt(max(law @ g**2 - (law @ g) ** 2, 0.0)) for law in recorded]))
