"""Confirmation measures: how strongly one word supports another, from window counts.

The building blocks of Röder, Both & Hinneburg (2015, §3.3), computed on count arrays:
``n12`` windows holding both words, ``n1`` holding the first (W'), ``n2`` holding the second
(W*), ``n`` windows in all. Probabilities are ``P(W') = n1 / n``, ``P(W*) = n2 / n`` and the
joint probability ``P(W', W*) = (n12 + smoothing) / n + epsilon`` under the
:class:`Conventions` in force.

Every function returns float64 arrays; what happens to a pair that never co-occurs is set by
the conventions (a fixed ``zero_pair`` value, or whatever the smoothed formula gives), and
the caller checks that nothing non-finite is left.

A base module (NumPy only), below both of its users: the coherence measures
(:mod:`tealeaves.coherence.measures`) and D-VAE's training NPMI
(:func:`tealeaves.models.neural.dvae.training_npmi`), so that NPMI is written once and
``models`` need not import ``coherence`` (which reads models). It was
``tealeaves.coherence.confirmation`` before 0.2.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tealeaves.errors import InputError, check_each

ROEDER_EPSILON = 1e-12  # Röder et al. 2015 (and gensim's EPSILON): keeps log(0) away


@dataclass(frozen=True, init=False)
class Conventions:
    """The choices a coherence number depends on, recorded with every result.

    Only the fields passed to the constructor are *set*; the others hold the defaults below.
    A measure has its own conventions (UMass: ``smoothing=1``); the caller's conventions, a
    ``Conventions`` or a dict, override only the fields they set (:meth:`merged`), so
    ``Conventions(log_base=2)`` keeps UMass's +1 and ``Conventions()`` changes nothing.

    Attributes
    ----------
    log_base : float
        Base of the logarithms (``math.e``: natural logs; Lau et al.'s toolkit uses 10).
        NPMI, C_V, C_A and DS do not depend on it.
    epsilon : float
        Added to the joint probability ``P(W', W*)`` (Röder et al. 2015 and gensim: 1e-12).
    smoothing : float
        Added to the joint count before dividing (Mimno et al. 2011: 1).
    zero_pair : float or None
        Value of a pair whose joint count is zero; None lets the (smoothed) formula decide,
        for NPMI its limit -1.
    gamma : int
        Exponent of the confirmation values in context vectors (C_V, C_A; Röder et al. 2015,
        Eq. 10, search γ in {1, 2, 3}; default 1). A positive whole number: NPMI is negative
        for words that co-occur less than chance, and a fractional power of a negative number
        is not real (Palmetto's ``Math.pow`` returns NaN there), so fractional γ is refused.

    Raises
    ------
    InputError
        For an unknown field or a value outside the ranges above.

    Examples
    --------
    UMass adds 1 to its joint counts; a caller who asks for base-2 logarithms keeps that:

    >>> from tealeaves.coherence import Conventions, get_measure
    >>> mine = Conventions(log_base=2)
    >>> mine.set_fields
    {'log_base': 2}
    >>> get_measure("umass").conventions.merged(mine)
    Conventions(log_base=2, epsilon=0.0, smoothing=1.0, zero_pair=None, gamma=1.0)
    >>> Conventions(gamma=1.5)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: gamma must be a whole number of at least 1 ...
    """

    log_base: float = math.e
    epsilon: float = 0.0
    smoothing: float = 0.0
    zero_pair: float | None = None
    gamma: float = 1.0
    _set: ClassVar[tuple[str, ...]] = ()  # the fields passed to the constructor, per instance

    def __init__(self, **settings: Any) -> None:
        fields = {f.name: f.default for f in dataclasses.fields(self)}
        unknown = set(settings) - set(fields)
        if unknown:
            raise InputError(f"unknown convention(s) {', '.join(sorted(unknown))}; use {', '.join(fields)}")
        for name, default in fields.items():
            object.__setattr__(self, name, settings.get(name, default))
        object.__setattr__(self, "_set", tuple(name for name in fields if name in settings))
        self._validate()

    def _validate(self) -> None:
        if not (self.log_base > 0 and self.log_base != 1 and math.isfinite(self.log_base)):
            raise InputError(f"log_base must be positive and not 1, got {self.log_base}")
        check_each(
            "coherence",
            [
                (0 <= self.epsilon < math.inf, "epsilon finite and >= 0", self.epsilon),
                (0 <= self.smoothing < math.inf, "smoothing finite and >= 0", self.smoothing),
            ],
        )
        if self.zero_pair is not None and not math.isfinite(self.zero_pair):
            raise InputError(f"zero_pair must be a finite number or None, got {self.zero_pair}")
        if not (math.isfinite(self.gamma) and self.gamma >= 1 and float(self.gamma).is_integer()):
            raise InputError(
                f"gamma must be a whole number of at least 1 (Röder et al. 2015 use 1, 2 or 3), got {self.gamma}: "
                "a fractional power of a negative NPMI is not a real number"
            )

    @property
    def set_fields(self) -> dict[str, Any]:
        """The fields passed to the constructor, with their values."""
        return {name: getattr(self, name) for name in self._set}

    def replace(self, **changes: Any) -> Conventions:
        """A copy with some fields changed (unknown names are refused); set fields stay set."""
        return Conventions(**{**self.set_fields, **changes})

    def merged(self, overrides: Conventions | dict[str, Any] | None) -> Conventions:
        """These conventions with the fields ``overrides`` sets (a dict: its keys) replaced."""
        if overrides is None:
            return self
        if isinstance(overrides, Conventions):
            return self.replace(**overrides.set_fields)
        if isinstance(overrides, dict):
            return self.replace(**overrides)
        raise InputError(f"conventions must be a Conventions or a dict, got {type(overrides).__name__}")

    def as_dict(self) -> dict[str, Any]:
        """The conventions as plain values (``log_base`` e written as ``"e"``)."""
        out = dataclasses.asdict(self)
        if self.log_base == math.e:
            out["log_base"] = "e"
        return out


def joint_probability(n12: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """``P(W', W*) = (n12 + smoothing) / n + epsilon``."""
    return (np.asarray(n12, dtype=np.float64) + conv.smoothing) / n + conv.epsilon


def _log(x: np.ndarray, conv: Conventions) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(x)
    return logs if conv.log_base == math.e else logs / math.log(conv.log_base)


def _zero_pairs(values: np.ndarray, n12: np.ndarray, conv: Conventions) -> np.ndarray:
    if conv.zero_pair is not None:
        values = np.where(np.asarray(n12) == 0, conv.zero_pair, values)
    return values


def log_ratio(n12: np.ndarray, n1: np.ndarray, n2: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """PMI, Röder et al.'s m_lr: ``log( P(W', W*) / (P(W') P(W*)) )``.

    Newman et al. (2010) and Lau et al. (2014, §4.2) call it PMI; Röder et al. (2015, Eq. 5)
    add ``epsilon`` to the joint probability.
    """
    p12 = joint_probability(n12, n, conv)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = _log(p12 / ((np.asarray(n1, np.float64) / n) * (np.asarray(n2, np.float64) / n)), conv)
    return _zero_pairs(values, n12, conv)


def normalized_log_ratio(n12: np.ndarray, n1: np.ndarray, n2: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """NPMI (Bouma 2009), Röder et al.'s m_nlr: ``PMI / -log P(W', W*)``, in [-1, 1].

    The log base cancels. Without smoothing a pair that never co-occurs has its limit -1, and
    a pair in every window (``P(W', W*) = 1``, so both marginals are 1) its limit 1.
    """
    p12 = joint_probability(n12, n, conv)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p12 / ((np.asarray(n1, np.float64) / n) * (np.asarray(n2, np.float64) / n)))
        values = pmi / -np.log(p12)
    values = np.where(p12 == 0, -1.0, np.where(p12 == 1, 1.0, values))
    return _zero_pairs(values, n12, conv)


def log_conditional(n12: np.ndarray, n2: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """Log conditional probability, Röder et al.'s m_lc: ``log( P(W', W*) / P(W*) )``.

    With ``smoothing=1`` and document windows this is Mimno et al.'s (2011, Eq. 1)
    ``log( (D(w', w*) + 1) / D(w*) )``; gensim's u_mass uses ``epsilon=1e-12`` instead.
    """
    p12 = joint_probability(n12, n, conv)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = _log(p12 / (np.asarray(n2, np.float64) / n), conv)
    return _zero_pairs(values, n12, conv)


def conditional(n12: np.ndarray, n2: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """Conditional probability, Röder et al.'s m_c: ``P(W', W*) / P(W*) = P(W' | W*)``."""
    p12 = joint_probability(n12, n, conv)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = p12 / (np.asarray(n2, np.float64) / n)
    return _zero_pairs(values, n12, conv)


def fitelson(n12: np.ndarray, n1: np.ndarray, n2: np.ndarray, n: int, conv: Conventions) -> np.ndarray:
    """Fitelson's confirmation, Röder et al.'s m_f (2015, Eq. 9):

    ``( P(W'|W*) - P(W'|¬W*) ) / ( P(W'|W*) + P(W'|¬W*) )`` with
    ``P(W'|¬W*) = ( P(W') - P(W', W*) ) / ( 1 - P(W*) )``. As in Palmetto, a conditional
    whose condition has probability 0 (or ``¬W*`` probability 0) is 0, and the measure is 0
    when both conditionals are 0.
    """
    p12 = joint_probability(n12, n, conv)
    p1 = np.asarray(n1, np.float64) / n
    p2 = np.asarray(n2, np.float64) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        given = np.where(p2 > 0, p12 / p2, 0.0)
        given_not = np.where(p2 < 1, (p1 - p12) / (1 - p2), 0.0)
        values = np.where((given > 0) | (given_not > 0), (given - given_not) / (given + given_not), 0.0)
    return _zero_pairs(values, n12, conv)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of matching rows of ``a`` and ``b``.

    0 where a row is all zero (every word of it missing under ``on_missing="zero"``); a NaN or
    infinite entry gives NaN, never a number, for the caller to refuse.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dots = np.einsum("ij,ij->i", a, b)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    finite = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(~finite, np.nan, np.where(norms == 0, 0.0, dots / norms))
