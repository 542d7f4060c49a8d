"""Reproducible random streams for numba kernels, independent of thread scheduling.

Kernels that loop over documents in parallel (``numba.prange``) give every document its own
stream, derived from the run's seed and the document's index, so the result is the same on
any machine and with any number of threads. The generator is SplitMix64 (Steele, Lea &
Flood 2014): a 64-bit state advanced by a Weyl increment and mixed by a finaliser.

Every public function that draws random numbers first derives its own family of streams from
the caller's seed and a purpose key of its own (:func:`family_seed`, :func:`family_generator`),
so two functions called with the same seed never share a stream. Without this, data drawn by
``synthetic_corpus(seed=0)`` and an estimator run with ``seed=0`` would use the same streams:
importance sampling from the prior would then propose exactly the θ that generated each document
and overestimate P(w) by hundreds of nats.

Usage inside an ``@njit`` kernel (``seed`` from :func:`family_seed`)::

    state = stream(seed, d)        # uint64[1], one per document
    u = uniform(state)             # float64 in [0, 1)
    k = categorical(weights, state)
    dirichlet(alpha, state, out)   # fills out
"""

from __future__ import annotations

import zlib

import numpy as np
from numba import njit

from tealeaves.errors import InputError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53
FAMILY_KEY = 0x7EA1EAF5  # first word of every purpose's spawn key


def as_seed(seed: int | np.random.Generator) -> int:
    """An int seed in [0, 2**63) from an int or a ``numpy.random.Generator``.

    Parameters
    ----------
    seed : int or numpy.random.Generator
        A non-negative int is kept; a Generator gives its next draw in [0, 2**63 - 1).

    Returns
    -------
    int

    Raises
    ------
    InputError
        For a negative int, a bool or another type.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.rng import as_seed
    >>> as_seed(7)
    7
    >>> as_seed(np.random.default_rng(0)) == as_seed(np.random.default_rng(0))
    True
    >>> as_seed(-1)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: seed must be a non-negative int or a numpy Generator, got -1
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise InputError(f"seed must be a non-negative int or a numpy Generator, got {seed!r}")


def family_seed(seed: int | np.random.Generator, purpose: str) -> int:
    """The seed, in [0, 2**63), of the stream family of ``purpose`` under the caller's ``seed``.

    ``numpy.random.SeedSequence(seed, spawn_key=(FAMILY_KEY, *purpose.encode()))`` hashes the
    seed together with the purpose's UTF-8 bytes, so distinct purposes (and distinct seeds) give
    unrelated seeds; kernels then draw document ``d`` from ``stream(family_seed(seed, purpose), d)``.
    The spawn key starts with :data:`FAMILY_KEY` and is never a single integer, so it cannot
    coincide with the run keys of :func:`tealeaves.likelihood.uncertainty.run_seed`.

    Parameters
    ----------
    seed : int or numpy.random.Generator
        The caller's seed (:func:`as_seed`).
    purpose : str
        A key naming what the streams are for (``"synthetic-corpus"``), unique to one function.

    Returns
    -------
    int
        A seed in [0, 2**63).

    Raises
    ------
    ValueError
        For an empty ``purpose``.

    Examples
    --------
    The same seed and purpose always give the same family; another purpose or another seed an
    unrelated one:

    >>> from tealeaves.rng import family_seed
    >>> family_seed(0, "synthetic") == family_seed(0, "synthetic")
    True
    >>> len({family_seed(0, "synthetic"), family_seed(0, "importance"), family_seed(1, "synthetic")})
    3
    >>> 0 <= family_seed(0, "synthetic") < 2**63
    True
    """
    if not purpose:
        raise ValueError("a stream family needs a non-empty purpose")
    sequence = np.random.SeedSequence(as_seed(seed), spawn_key=(FAMILY_KEY, *purpose.encode()))
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


def family_generator(seed: int | np.random.Generator, purpose: str) -> np.random.Generator:
    """A numpy Generator on the stream family of ``purpose`` (see :func:`family_seed`).

    Parameters
    ----------
    seed : int or numpy.random.Generator
        The caller's seed.
    purpose : str
        A key naming what the draws are for, unique to one function.

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(family_seed(seed, purpose))``.

    Examples
    --------
    >>> from tealeaves.rng import family_generator
    >>> first = family_generator(0, "split").integers(0, 100, 5).tolist()
    >>> first == family_generator(0, "split").integers(0, 100, 5).tolist()
    True
    >>> first == family_generator(0, "shuffle").integers(0, 100, 5).tolist()
    False
    """
    return np.random.default_rng(family_seed(as_seed(seed), purpose))


def word_hash(text: str) -> int:
    """CRC-32 of ``text``'s UTF-8 bytes: the same in every process, unlike Python's ``hash`` of a
    string (gensim's Word2Vec seeds each word's starting vector with its ``hashfxn``).

    Parameters
    ----------
    text : str
        A word.

    Returns
    -------
    int
        An unsigned 32-bit hash, ``zlib.crc32(text.encode("utf-8"))``.

    Examples
    --------
    >>> import zlib
    >>> from tealeaves.rng import word_hash
    >>> word_hash("tax"), word_hash("tax") == zlib.crc32(b"tax")
    (2390866550, True)
    """
    return zlib.crc32(text.encode("utf-8"))


@njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def stream(seed: int, index: int) -> np.ndarray:
    """The state (uint64[1]) of stream ``index`` of run ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = _mix(np.uint64(seed) * _GOLDEN + _mix(np.uint64(index) + _GOLDEN))
    return state


@njit(cache=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance ``state`` and return 64 random bits."""
    state[0] += _GOLDEN
    return _mix(state[0])


@njit(cache=True, inline="always")
def uniform(state: np.ndarray) -> float:
    """A float64 uniform on [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _S11) * _TO_UNIT


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def normal(state: np.ndarray) -> float:
    """A standard normal draw (Box-Muller)."""
    u1 = uniform(state)
    while u1 == 0.0:
        u1 = uniform(state)
    u2 = uniform(state)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
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
