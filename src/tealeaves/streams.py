"""Reproducible random streams for numba kernels, independent of thread scheduling.

Kernels that loop over documents give every document its own stream, derived from the run's
seed and the document's index, so the result is the same on any machine, with any number of
threads and any batching. The generator is SplitMix64 (Steele, Lea & Flood 2014): a 64-bit
state advanced by a Weyl increment and mixed by a finaliser. A run's seed is its function's
stream family (:func:`tealeaves.rng.family_seed`), never the user's seed itself.

Usage inside a kernel (``seed`` from :func:`~tealeaves.rng.family_seed`)::

    state = stream(seed, d)        # uint64[1], one per document
    u = uniform(state)             # float64 in [0, 1)
    k = categorical(weights, state)
    dirichlet(alpha, state, out)   # fills out
"""

from __future__ import annotations

import numpy as np

from tealeaves.jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@kernel(inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel(inline="always")
def stream(seed: int, index: int) -> np.ndarray:
    """The state (uint64[1]) of stream ``index`` of run ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = _mix(np.uint64(seed) * _GOLDEN + _mix(np.uint64(index) + _GOLDEN))
    return state


@kernel(inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance ``state`` and return 64 random bits."""
    state[0] += _GOLDEN
    return _mix(state[0])


@kernel(inline="always")
def uniform(state: np.ndarray) -> float:
    """A float64 uniform on [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _S11) * _TO_UNIT


@kernel
def categorical(weights: np.ndarray, state: np.ndarray) -> int:
    """An index drawn with probability proportional to the non-negative ``weights``."""
    total = 0.0
    for w in weights:
        total += w
    target = uniform(state) * total
    acc = 0.0
    last = 0
    for i in range(weights.shape[0]):
        if weights[i] > 0.0:
            acc += weights[i]
            last = i
            if target < acc:
                return i
    return last


@kernel
def log_gamma(shape: float, state: np.ndarray) -> float:
    """The log of a Gamma(shape, 1) draw (Marsaglia & Tsang 2000; for shape < 1 the boost
    ``G(shape + 1) * U ** (1 / shape)`` is applied in log space, so tiny shapes never underflow)."""
    if shape < 1.0:
        u = uniform(state)
        while u == 0.0:
            u = uniform(state)
        return log_gamma(shape + 1.0, state) + np.log(u) / shape
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        x = normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        if u < 1.0 - 0.0331 * x**4 or np.log(u) < 0.5 * x * x + d * (1.0 - v + np.log(v)):
            return np.log(d * v)


@kernel
def normal(state: np.ndarray) -> float:
    """A standard normal draw (Box-Muller)."""
    u1 = uniform(state)
    while u1 == 0.0:
        u1 = uniform(state)
    u2 = uniform(state)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@kernel
def dirichlet(alpha: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` with a Dirichlet(``alpha``) draw (normalised in log space)."""
    top = -np.inf
    for k in range(alpha.shape[0]):
        out[k] = log_gamma(alpha[k], state)
        top = max(top, out[k])
    total = 0.0
    for k in range(alpha.shape[0]):
        out[k] = np.exp(out[k] - top)
        total += out[k]
    for k in range(alpha.shape[0]):
        out[k] /= total
