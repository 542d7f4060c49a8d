"""One joint resampling of every comparison of a report: the null statistics Westfall and Young's step-down needs.

A report compares models on many metrics at once, and the metrics share their units: every
document-level metric scores the same held-out documents, every topic-level metric the same
topics of a model. :func:`joint_null` resamples those units once per replicate and recomputes
every comparison on the same replicate, so that the comparisons' dependence is kept and
:func:`tealeaves.stats.westfall_young` can adjust them all together. A replicate draws, for
each model and each kind of unit (``space``: ``"document"``, ``"topic"``), one uniform key and
one bootstrap draw per unit; each comparison reads the draws of its two models:

- :class:`PairedRatios` (documents scored by both models): the studentised paired randomisation
  test. Document i swaps the two models' (value, weight) where model A's key exceeds model B's,
  an independent fair coin per document that is one random permutation of the model labels of
  the document across all the pairs of all the metrics; the statistic is the paired t of the
  linearised ratios (:func:`tealeaves.stats.swapped_paired_statistics`). Exact where the models
  are exchangeable on each document; with 20 held-out documents of heavy-tailed length it
  rejects 5% where the paired t on its t distribution rejects 13%.
- :class:`IndependentMeans` (topics, independent across models), ``method="bootstrap-t"``: the
  symmetric bootstrap-t test of a difference of means (Hall 1992, *The Bootstrap and Edgeworth
  Expansion*, §3.12; Efron and Tibshirani 1993, §16.4): each model's topics are drawn with
  replacement (the same draws for every topic-level metric of the model) and the statistic is
  :math:`|\\bar x^*_A - \\bar x^*_B - (\\bar x_A - \\bar x_B)| / se^*`, Welch's standard error
  recomputed on the draws. Its level holds when the two models' values have unequal variances
  and opposite skews (Gamma skewness +2 against −2: 4.4-6.5% at 5 to 50 topics,
  ``benchmarks/calibration_verdicts.py``), where the studentised permutation test (Chung and
  Romano 2013) rejects 9.5% at 5 topics and 7.8% at 20, and Welch's t alike.
  ``method="studentised permutation"`` (values so tied, at a ceiling, that a bootstrap draw
  often has no spread: :func:`tied_draws`): Welch's t over relabellings of the pooled topics
  (Chung and Romano 2013), exact where the models' topics are exchangeable.
  ``method="permutation"`` (fewer than five topics in a model, or none varying): the
  permutation test of the difference of means, the topics' labels relabelled by their keys
  (:func:`tealeaves.stats.key_splits`), exact, but unable to go below
  :math:`1 / \\binom{n}{n_A}` (twice that for equal groups): the comparison's ``floor``.
- :class:`Regrouped` (a model-level quantity of each model's topics: topic uniqueness,
  diversity, inverted RBO): the randomisation test, the pooled topics split by their keys.

Every statistic is "larger is more extreme", and :func:`joint_null` returns the observed
statistics, the ``B x m`` null statistics and each comparison's floor, what
:func:`tealeaves.stats.westfall_young` takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

import numpy as np

from tealeaves.stats.resampling import key_splits
from tealeaves.stats.tests import split_welch_statistics, swapped_paired_statistics

Draws = dict[tuple[str, str], np.ndarray]
ROWS = 4_000_000  # draws of one kind held at once: bounds a chunk of replicates


def _split_floor(n_a: int, n_b: int) -> float:
    """The smallest p-value of a two-sided test over all splits of ``n_a + n_b`` units: one split of
    :math:`\\binom{n}{n_A}`, or two (a split and its mirror) for equal groups."""
    return (2.0 if n_a == n_b else 1.0) / math.comb(n_a + n_b, n_a)


@dataclass(frozen=True)
class PairedRatios:
    """Two models' ratios over the documents both scored: ``ids`` and each model's (values, weights) on them.

    Attributes
    ----------
    a, b : str
        The two models (whose keys the replicates draw).
    ids : ndarray of int
        The documents both scored.
    series_a, series_b : tuple of ndarray
        Each model's values and weights on ``ids``.
    space : str
        The kind of unit (``"document"``).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.family import PairedRatios
    >>> w, a, b = np.ones(4), np.array([1.1, 2.3, 2.9, 4.4]), np.array([1.0, 2.0, 3.0, 4.0])
    >>> pair = PairedRatios("a", "b", np.arange(4), (a, w), (b, w))
    >>> round(pair.observed(), 4), pair.floor()
    (1.5785, 0.125)
    """

    a: str
    b: str
    ids: np.ndarray
    series_a: tuple[np.ndarray, np.ndarray]
    series_b: tuple[np.ndarray, np.ndarray]
    space: str = "document"

    def units(self) -> list[tuple[str, str, int, bool]]:
        size = int(self.ids.max()) + 1 if len(self.ids) else 0
        return [(self.a, self.space, size, False), (self.b, self.space, size, False)]

    def observed(self) -> float:
        return float(swapped_paired_statistics(self.series_a, self.series_b, np.zeros((1, len(self.ids)), bool))[0])

    def resampled(self, keys: Draws, draws: Draws) -> np.ndarray:
        swaps = keys[self.a, self.space][:, self.ids] > keys[self.b, self.space][:, self.ids]
        return swapped_paired_statistics(self.series_a, self.series_b, swaps)

    def floor(self) -> float:
        return 2.0 ** (1 - len(self.ids))


@dataclass(frozen=True)
class IndependentMeans:
    """Two models' values on their own units (``ids_a``, ``ids_b`` in the ``space`` of each), compared by their means.

    Attributes
    ----------
    a, b : str
        The two models.
    ids_a, values_a, ids_b, values_b : ndarray
        Each model's units and values.
    method : str
        ``"bootstrap-t"``, ``"studentised permutation"`` or ``"permutation"``.
    space : str
        The kind of unit (``"topic"``, or ``"document"`` for rated documents).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.family import IndependentMeans
    >>> ids, a, b = np.arange(4), np.array([0.9, 0.8, 0.85, 0.95]), np.array([0.1, 0.2, 0.0, 0.15])
    >>> pair = IndependentMeans("a", "b", ids, a, ids, b, "permutation")
    >>> round(pair.observed(), 4), round(pair.floor(), 4)  # 2 of the 70 splits are as extreme
    (0.7625, 0.0286)
    """

    a: str
    b: str
    ids_a: np.ndarray
    values_a: np.ndarray
    ids_b: np.ndarray
    values_b: np.ndarray
    method: str = "bootstrap-t"  # or "studentised permutation", "permutation"
    space: str = "topic"

    def units(self) -> list[tuple[str, str, int, bool]]:
        boot = self.method == "bootstrap-t"
        return [
            (self.a, self.space, int(self.ids_a.max()) + 1, boot),
            (self.b, self.space, int(self.ids_b.max()) + 1, boot),
        ]

    def observed(self) -> float:
        if self.method == "permutation":
            return float(abs(self.values_a.mean() - self.values_b.mean()))
        x = np.concatenate([self.values_a, self.values_b])
        return float(split_welch_statistics(x, np.arange(len(x))[None, :] < len(self.values_a))[0])

    def resampled(self, keys: Draws, draws: Draws) -> np.ndarray:
        if self.method != "bootstrap-t":
            pooled = np.concatenate([self.values_a, self.values_b])
            order = np.hstack([keys[self.a, self.space][:, self.ids_a], keys[self.b, self.space][:, self.ids_b]])
            groups = key_splits(order, len(self.values_a))
            if self.method == "studentised permutation":
                return split_welch_statistics(pooled, groups)
            n_a, n_b, g = len(self.values_a), len(self.values_b), groups.astype(np.float64)
            return np.abs(g @ pooled / n_a - (pooled.sum() - g @ pooled) / n_b)
        moments = [
            _drawn_moments(draws[model, self.space], ids, values)
            for model, ids, values in ((self.a, self.ids_a, self.values_a), (self.b, self.ids_b, self.values_b))
        ]
        (mean_a, var_a), (mean_b, var_b) = moments
        centre = self.values_a.mean() - self.values_b.mean()
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.abs(mean_a - mean_b - centre) / np.sqrt(var_a + var_b)

    def floor(self) -> float:
        return 0.0 if self.method == "bootstrap-t" else _split_floor(len(self.values_a), len(self.values_b))


def tied_draws(values: np.ndarray) -> float:
    """The probability that a bootstrap draw of ``n`` values has no spread, :math:`\\sum_v (c_v / n)^n`
    over the distinct values :math:`v` and their counts :math:`c_v`: above a percent or so (values
    at a ceiling, as word intrusion's often are), the bootstrap-t's studentised resamples are
    degenerate and :class:`IndependentMeans` takes the studentised permutation test instead.

    Parameters
    ----------
    values : array-like
        A model's per-topic values.

    Returns
    -------
    float

    Examples
    --------
    >>> from tealeaves.stats.family import tied_draws
    >>> round(tied_draws([1.0] * 7 + [0.125]), 3), tied_draws([0.1, 0.2, 0.3, 0.4, 0.5]) < 0.01
    (0.344, True)
    """
    _, counts = np.unique(np.asarray(values, dtype=np.float64), return_counts=True)
    return float(np.sum((counts / counts.sum()) ** counts.sum()))


def _drawn_moments(draw: np.ndarray, ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's mean and squared standard error of the values whose ids a bootstrap draw of the space
    picked (ids absent from ``ids`` count as missing: the row's n is the values drawn)."""
    dense = np.full(draw.shape[1], np.nan)
    dense[ids] = values
    drawn = dense[draw]
    present = np.isfinite(drawn)
    n = present.sum(axis=1)
    filled = np.where(present, drawn, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = filled.sum(axis=1) / n
        var = np.where(present, (filled - mean[:, None]) ** 2, 0.0).sum(axis=1) / (n - 1)
        return mean, np.where(n > 1, var / n, np.nan)


@dataclass(frozen=True)
class Regrouped:
    """A model-level quantity of two models' topics (``n_a`` and ``n_b`` of them), pooled:
    ``quantity`` maps boolean masks over the pooled topics (A's first) to the quantity of each row's subset.

    Attributes
    ----------
    a, b : str
        The two models.
    n_a, n_b : int
        Their topics.
    quantity : callable
        Boolean masks (R, n_a + n_b) -> the quantity of each row's topics.
    space : str
        The kind of unit (``"topic"``).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.family import Regrouped
    >>> x = np.array([5.0, 6, 7, 0, 1, 2])
    >>> pair = Regrouped("a", "b", 3, 3, lambda rows: rows @ x / rows.sum(axis=1))
    >>> pair.observed(), pair.floor()
    (5.0, 0.1)
    """

    a: str
    b: str
    n_a: int
    n_b: int
    quantity: Callable[[np.ndarray], np.ndarray]
    space: str = "topic"

    def units(self) -> list[tuple[str, str, int, bool]]:
        return [(self.a, self.space, self.n_a, False), (self.b, self.space, self.n_b, False)]

    def _statistic(self, groups: np.ndarray) -> np.ndarray:
        return np.abs(self.quantity(groups) - self.quantity(~groups))

    def observed(self) -> float:
        return float(self._statistic(np.arange(self.n_a + self.n_b)[None, :] < self.n_a)[0])

    def resampled(self, keys: Draws, draws: Draws) -> np.ndarray:
        order = np.hstack([keys[self.a, self.space][:, : self.n_a], keys[self.b, self.space][:, : self.n_b]])
        return self._statistic(key_splits(order, self.n_a))

    def floor(self) -> float:
        return _split_floor(self.n_a, self.n_b)


Comparison = Union[PairedRatios, IndependentMeans, Regrouped]


def joint_null(
    comparisons: Sequence[Comparison], n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every comparison's statistic on the data and on ``n_resamples`` joint replicates under the null.

    Each replicate draws, for every (model, space) the comparisons name, in sorted order, a
    uniform key per unit and, where a bootstrap-t comparison needs it, a draw with replacement
    of the space's units; every comparison then reads its models' keys and draws (see the module
    docstring). The replicates are drawn in chunks whose draws hold at most :data:`ROWS` values
    of one kind, in a fixed order, so the same ``rng`` state always gives the same statistics.

    Parameters
    ----------
    comparisons : sequence of PairedRatios, IndependentMeans, Regrouped
        The family's comparisons.
    n_resamples : int
        Replicates B.
    rng : numpy.random.Generator
        The stream of every draw (the caller's family, :func:`tealeaves.rng.family_generator`).

    Returns
    -------
    tuple of ndarray
        The observed statistics (m,), the null statistics (B, m) and each comparison's smallest
        attainable marginal p-value (m,).

    Examples
    --------
    Two metrics of two models' five topics, the second a copy of the first: their null
    statistics coincide, replicate by replicate.

    >>> import numpy as np
    >>> from tealeaves.stats.family import IndependentMeans, joint_null
    >>> ids, a, b = np.arange(5), np.array([0.1, 0.3, 0.2, 0.5, 0.4]), np.array([0.0, 0.2, 0.1, 0.1, 0.3])
    >>> pair = IndependentMeans("x", "y", ids, a, ids, b)
    >>> observed, null, floor = joint_null([pair, pair], 200, np.random.default_rng(0))
    >>> bool(np.array_equal(null[:, 0], null[:, 1])), round(float(observed[0]), 3), null.shape
    (True, 1.835, (200, 2))
    """
    sizes: dict[tuple[str, str], int] = {}
    boot: set[tuple[str, str]] = set()
    for c in comparisons:
        for model, space, size, needs_draws in c.units():
            sizes[model, space] = max(sizes.get((model, space), 0), size)
            if needs_draws:
                boot.add((model, space))
    observed = np.array([c.observed() for c in comparisons], dtype=np.float64)
    null = np.empty((n_resamples, len(comparisons)))
    chunk = max(1, min(n_resamples, ROWS // max([1, *sizes.values()])))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        keys, draws = {}, {}
        for unit, size in sorted(sizes.items()):
            keys[unit] = rng.random((rows, size))
            if unit in boot:
                draws[unit] = rng.integers(0, size, size=(rows, size))
        for j, c in enumerate(comparisons):
            null[start : start + rows, j] = c.resampled(keys, draws)
    return observed, null, np.array([c.floor() for c in comparisons], dtype=np.float64)
