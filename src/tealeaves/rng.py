"""Seeds: every random function's own family of streams under the caller's seed (numpy only).

Every public function that draws random numbers first derives its own family of streams from
the caller's seed and a purpose key of its own (:func:`family_seed`, :func:`family_generator`),
so two functions called with the same seed never share a stream. Without this, data drawn by
``synthetic_corpus(seed=0)`` and an estimator run with ``seed=0`` would use the same streams:
importance sampling from the prior would then propose exactly the θ that generated each document
and overestimate P(w) by hundreds of nats. Kernels draw from the family seed through the
per-document streams of :mod:`tealeaves.streams`.
"""

from __future__ import annotations

import zlib

import numpy as np

from tealeaves.errors import InputError

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
