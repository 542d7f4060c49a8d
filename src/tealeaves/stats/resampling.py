"""Resampling engines: the draws behind every bootstrap, permutation and randomisation of tealeaves.

Each engine draws from the ``numpy.random.Generator`` it is given, which the caller takes from
its own stream family (:func:`tealeaves.rng.family_generator` with the caller's seed and a
purpose of its own), so that the same seed always gives the same resamples and two callers never
share a stream. The engines:

- :func:`random_orders`: random permutations of ``n`` positions (random subsets, relabellings,
  regroupings are their first positions);
- :func:`paired_ratio_bootstrap`: a ratio of sums over units shared by several series (held-out
  documents scored by every model), every series resampled with the same units;
- :func:`ratio_jackknife` and :func:`resampled_ratio_jackknife`: a ratio (or a difference of two
  over the same units) with its jackknife standard error, as observed and over resamples of the
  units (the bootstrap-t's studentisation);
- :func:`stratified_indices` and :func:`stratified_counts`: units drawn with replacement within
  strata (topics within their model or data set), as indices or as multiplicities;
- :func:`bootstrap_counts`: the multiplicities of units drawn with replacement (annotators);
- :func:`weighted_group_means`: each group's mean with its members weighted per resample;
- :func:`within_group_draws` and :func:`resampled_group_means`: each group's members drawn with
  replacement within the group, and the group's mean over them (a topic's answers: Hoyle et al.
  2021's bootstrap);
- :func:`two_way_cluster_bootstrap`: Owen's (2007) pigeonhole bootstrap of crossed clusters
  (topics within strata x annotators).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import TypeVar

import numpy as np

from tealeaves.errors import InputError, as_numbers, check_each, describe, is_count

K = TypeVar("K", bound=Hashable)


def check_draws(owner: str, rng: np.random.Generator, n_resamples: int, least: int = 1) -> None:
    """Refuse a stream that is not a ``numpy.random.Generator`` or a number of resamples that is not a whole number.

    Every test, limit and engine that takes the caller's stream and a number of resamples asks this first, so
    that a seed given where the stream goes (``rng=0``, scikit-learn's ``random_state``) or
    ``n_resamples=999.0`` is refused by name, not by NumPy's ``'int' object has no attribute 'random'``.

    Parameters
    ----------
    owner : str
        The function, as the message names it.
    rng : numpy.random.Generator
        What was given as the stream.
    n_resamples : int
        What was given as the number of resamples.
    least : int, optional
        The fewest resamples accepted.

    Raises
    ------
    InputError
        For the first of the two that is wrong.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import check_draws
    >>> check_draws("permutation_test", np.random.default_rng(0), 999)
    >>> check_draws("permutation_test", 0, 999)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: permutation_test needs rng, a numpy.random.Generator (numpy.random.default_rng(seed)), got 0
    """
    check_each(
        owner,
        [
            (
                isinstance(rng, np.random.Generator),
                "rng, a numpy.random.Generator (numpy.random.default_rng(seed))",
                rng,
            ),
            (is_count(n_resamples, least), f"n_resamples >= {least} (a whole number)", n_resamples),
        ],
    )


def _check_units(owner: str, n: int) -> None:
    """Refuse a number of units that is not a whole number of at least one."""
    check_each(owner, [(is_count(n), "n >= 1 units (a whole number)", n)])


def _checked_strata(owner: str, strata: np.ndarray) -> np.ndarray:
    """``strata`` as a 1-d array of labels, one a unit, or an InputError naming it."""
    labels = np.asarray(strata) if isinstance(strata, (list, tuple, np.ndarray)) else np.empty((0, 0))
    if labels.ndim != 1:
        raise InputError(f"{owner} needs strata, a list of one label a unit, got {describe(strata)}")
    return labels


def _values_and_weights(key: Hashable, pair: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One series of :func:`paired_ratio_bootstrap` as two float arrays of one length, or an InputError naming it."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
        raise InputError(f"series {key!r} must be a pair (values, weights), got {describe(pair)}")
    values, weights = (
        as_numbers(part, f"series {key!r}'s {name}", ndim=1) for part, name in zip(pair, ("values", "weights"))
    )
    if len(values) != len(weights):
        raise InputError(f"series {key!r} has {len(values)} values and {len(weights)} weights: one of each a unit")
    return values, weights


def random_orders(rng: np.random.Generator, n_resamples: int, n: int) -> np.ndarray:
    """``n_resamples`` random permutations of the positions 0 to n − 1, one a row (the ranks of uniform draws).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream to draw from.
    n_resamples, n : int
        Rows, and positions per row.

    Returns
    -------
    ndarray of int64, shape (n_resamples, n)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import random_orders
    >>> orders = random_orders(np.random.default_rng(0), 3, 5)
    >>> np.sort(orders, axis=1).tolist()
    [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
    """
    check_draws("random_orders", rng, n_resamples)
    _check_units("random_orders", n)
    return np.argsort(rng.random((n_resamples, n)), axis=1)


def paired_ratio_bootstrap(
    series: Mapping[K, tuple[np.ndarray, np.ndarray]], n_resamples: int, rng: np.random.Generator
) -> dict[K, np.ndarray]:
    """The bootstrap of ratios of sums over shared units: every series resampled with the same units.

    Each series is a pair ``(values, weights)`` over the same ``n`` units (a model's
    log likelihood and token count of every held-out document; a unit a series did not score
    has value and weight 0). Each of ``n_resamples`` resamples draws ``n`` units with
    replacement, the same for every series, and gives each series its ratio
    :math:`R^* = \\sum_{i \\in \\text{draw}} v_i / \\sum_{i \\in \\text{draw}} w_i`; the
    difference of two series' :math:`R^*` is then the paired bootstrap of their difference
    (Efron and Tibshirani 1993, ch. 9).

    Parameters
    ----------
    series : mapping of hashable to (ndarray, ndarray)
        Each series' values and weights, arrays of the same length ``n``.
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream the units are drawn from (in chunks of at most 2,000,000 indices).

    Returns
    -------
    dict
        Each series' ``n_resamples`` ratios, by key.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import paired_ratio_bootstrap
    >>> ones = np.ones(4)
    >>> out = paired_ratio_bootstrap({"a": (np.arange(4.0), ones), "b": (np.arange(4.0) + 1, ones)}, 5, np.random.default_rng(0))
    >>> (out["b"] - out["a"]).tolist()  # the same units in both: the difference is exactly 1
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    check_draws("paired_ratio_bootstrap", rng, n_resamples)
    if not (isinstance(series, Mapping) and series):
        raise InputError(
            f"paired_ratio_bootstrap needs a mapping of series to (values, weights), got {describe(series)}"
        )
    series = {key: _values_and_weights(key, pair) for key, pair in series.items()}
    if len({len(values) for values, _ in series.values()}) != 1:
        raise InputError("paired_ratio_bootstrap needs every series over the same units (values of one length)")
    n = len(next(iter(series.values()))[0])
    out = {key: np.empty(n_resamples) for key in series}
    for start, draw in unit_draws(n, n_resamples, rng):
        for key, (values, weights) in series.items():
            out[key][start : start + len(draw)] = values[draw].sum(axis=1) / weights[draw].sum(axis=1)
    return out


def ratio_deviations(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ratio :math:`R = \\sum_i v_i / \\sum_i w_i` over the last axis and each unit's deviation
    :math:`(v_i - R w_i) / \\bar w` (the delta method's: :math:`R` plus the deviations are the linearised
    contributions, whose mean is :math:`R`); leading axes are rows, each with its own ratio.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.resampling import ratio_deviations
    >>> r, deviations = ratio_deviations(np.array([2.0, 6.0]), np.array([1.0, 3.0]))
    >>> float(r), deviations.tolist()
    (2.0, [0.0, 0.0])
    """
    r = values.sum(axis=-1) / weights.sum(axis=-1)
    return r, (values - r[..., None] * weights) / weights.mean(axis=-1, keepdims=True)


def ratio_jackknife(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A ratio :math:`R = \\sum_i v_i / \\sum_i w_i` over the last axis (n units), or the difference of
    two ratios over the same units, with its jackknife standard error.

    The series lie on the axis before the units: one series, or two, the second subtracted
    (:math:`R - R'`); any axes before that are rows, each with its own ratio. With the
    leave-one-out ratios :math:`R_{(i)} = (V - v_i) / (W - w_i)` (of a difference, :math:`R_{(i)} -
    R'_{(i)}`),

    .. math:: se^2 = \\frac{n - 1}{n} \\sum_i (R_{(i)} - \\bar R_{(\\cdot)})^2

    (Quenouille 1956, Tukey 1958; for a ratio of sums less biased than the delta method's
    :math:`\\sum_i l_i^2 / (n (n - 1))` when a few units carry much of the weight: Rao and Wu 1985,
    "Inference from stratified samples: second-order analysis of three methods for nonlinear
    statistics", JASA 80, 620-630). A unit of value and weight 0 (not scored) leaves the ratio as
    it is, and is its own leave-one-out ratio. Where one unit carries all the weight, its
    leave-one-out ratio is undefined and so is the standard error (NaN).

    Parameters
    ----------
    values, weights : ndarray, shape (..., m, n)
        The m = 1 or 2 series' values and weights over the n units.

    Returns
    -------
    tuple of ndarray
        The ratio (or difference) and its standard error, shape (...).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.resampling import ratio_jackknife
    >>> v, w = np.array([[3.0, 5.0, 4.0, 8.0]]), np.array([[1.0, 2.0, 2.0, 3.0]])
    >>> r, se = ratio_jackknife(v, w)
    >>> round(float(r), 4), round(float(se), 4)
    (2.5, 0.1793)
    >>> r, se = ratio_jackknife(np.stack([v[0], 2 * w[0]]), np.stack([w[0], w[0]]))
    >>> round(float(r), 4), round(float(se), 4)
    (0.5, 0.1793)
    """
    sign = np.array([1.0, -1.0])[: values.shape[-2], None]
    total_v, total_w = values.sum(axis=-1, keepdims=True), weights.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        left_out = ((total_v - values) / (total_w - weights) * sign).sum(axis=-2)
    n = values.shape[-1]
    spread = ((left_out - left_out.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    return (total_v / total_w * sign).sum(axis=-2)[..., 0], np.sqrt((n - 1) / n * spread)


def resampled_ratio_jackknife(
    values: np.ndarray, weights: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ratio_jackknife` of ``n_resamples`` resamples of the units, every series resampled with the
    same units (:func:`unit_draws`: from the same stream, the resamples :func:`paired_ratio_bootstrap`
    draws).

    Parameters
    ----------
    values, weights : ndarray, shape (m, n)
        The m = 1 or 2 series' values and weights over the n units.
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream the units are drawn from.

    Returns
    -------
    tuple of ndarray
        Each resample's ratio (or difference) and standard error, shape (n_resamples,).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.resampling import resampled_ratio_jackknife
    >>> v, w = np.array([[3.0, 5.0, 4.0, 8.0, 6.0]]), np.array([[1.0, 2.0, 2.0, 3.0, 2.0]])
    >>> ratios, ses = resampled_ratio_jackknife(v, w, 4, np.random.default_rng(0))
    >>> ratios.shape, bool(np.all(ses >= 0))
    ((4,), True)
    """
    ratios, ses = np.empty(n_resamples), np.empty(n_resamples)
    for start, draw in unit_draws(values.shape[-1], n_resamples, rng):
        rows = slice(start, start + len(draw))
        ratios[rows], ses[rows] = ratio_jackknife(
            values[:, draw].transpose(1, 0, 2), weights[:, draw].transpose(1, 0, 2)
        )
    return ratios, ses


def unit_draws(n: int, n_resamples: int, rng: np.random.Generator) -> Iterator[tuple[int, np.ndarray]]:
    """``n_resamples`` rows of ``n`` unit indices drawn with replacement, in blocks of at most
    2,000,000 indices: (the first row's number, the block). Every resampling of shared units
    (:func:`paired_ratio_bootstrap`, :func:`tealeaves.stats.ratio_bootstrap_t_interval`) draws them
    so, so that the same stream gives the same resamples to each.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats.resampling import unit_draws
    >>> [(start, block.shape) for start, block in unit_draws(1_000_000, 5, np.random.default_rng(0))]
    [(0, (2, 1000000)), (2, (2, 1000000)), (4, (1, 1000000))]
    """
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, n_resamples, chunk):
        yield start, rng.integers(0, n, size=(min(n_resamples, start + chunk) - start, n))


def stratified_indices(strata: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``n_resamples`` rows of unit indices drawn with replacement within each stratum, as many as it has.

    ``strata`` labels each unit (e.g. a topic's (dataset, model)); row ``b`` holds, at the
    positions of each stratum's units, a draw with replacement from that stratum's units, so every
    resample keeps the number of units of every stratum (the stratified bootstrap; Davison and
    Hinkley 1997, *Bootstrap Methods and their Application*, §3.7).

    Parameters
    ----------
    strata : array-like of shape (n,)
        Each unit's stratum.
    n_resamples : int
        Rows.
    rng : numpy.random.Generator
        The stream to draw from, stratum after stratum in sorted order.

    Returns
    -------
    ndarray of int64, shape (n_resamples, n)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import stratified_indices
    >>> drawn = stratified_indices(["a", "a", "b", "b", "b"], 4, np.random.default_rng(0))
    >>> bool((drawn[:, :2] < 2).all() and (drawn[:, 2:] >= 2).all())
    True
    """
    check_draws("stratified_indices", rng, n_resamples)
    strata = _checked_strata("stratified_indices", strata)
    drawn = np.empty((n_resamples, len(strata)), dtype=np.int64)
    for own in _strata(strata):
        drawn[:, own] = own[rng.integers(len(own), size=(n_resamples, len(own)))]
    return drawn


def bootstrap_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How many times each of ``n`` units is drawn in each of ``n_resamples`` draws of ``n`` with replacement.

    Parameters
    ----------
    n : int
        Units.
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream to draw from (one multinomial of ``n`` trials per resample).

    Returns
    -------
    ndarray of int64, shape (n_resamples, n)
        Every row sums to ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import bootstrap_counts
    >>> bootstrap_counts(6, 3, np.random.default_rng(0)).sum(axis=1).tolist()
    [6, 6, 6]
    """
    check_draws("bootstrap_counts", rng, n_resamples)
    _check_units("bootstrap_counts", n)
    return rng.multinomial(n, np.full(n, 1 / n), size=n_resamples)


def stratified_counts(strata: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`bootstrap_counts` within each stratum: each unit's multiplicity, every stratum keeping its size.

    Parameters
    ----------
    strata : array-like of shape (n,)
        Each unit's stratum.
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream to draw from, stratum after stratum in sorted order.

    Returns
    -------
    ndarray of float64, shape (n_resamples, n)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import stratified_counts
    >>> counts = stratified_counts([0, 0, 0, 1, 1], 4, np.random.default_rng(0))
    >>> counts[:, :3].sum(axis=1).tolist(), counts[:, 3:].sum(axis=1).tolist()
    ([3.0, 3.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0])
    """
    check_draws("stratified_counts", rng, n_resamples)
    strata = _checked_strata("stratified_counts", strata)
    counts = np.zeros((n_resamples, len(strata)))
    for own in _strata(strata):
        counts[:, own] = bootstrap_counts(len(own), n_resamples, rng)
    return counts


def _strata(strata: np.ndarray) -> list[np.ndarray]:
    """The positions of each stratum's units, strata in sorted order."""
    _, label = np.unique(np.asarray(strata), return_inverse=True)
    return [np.flatnonzero(label == s) for s in range(label.max() + 1 if len(label) else 0)]


def _membership(group: np.ndarray, n_groups: int):
    """The sparse (members x groups) indicator matrix of ``group``."""
    from scipy import sparse

    n = len(group)
    return sparse.csr_matrix((np.ones(n), (np.arange(n), group)), shape=(n, n_groups))


def weighted_group_means(values: np.ndarray, group: np.ndarray, n_groups: int, weights: np.ndarray) -> np.ndarray:
    """Each group's weighted mean of its members' ``values``, for every row of ``weights``.

    .. math:: \\bar x^*_{b,g} = \\frac{\\sum_{i \\in g} w_{bi} x_i}{\\sum_{i \\in g} w_{bi}}

    Parameters
    ----------
    values : array-like of shape (n,)
        The members' values.
    group : array-like of int, shape (n,)
        Each member's group, ``0 .. n_groups - 1``.
    n_groups : int
        Groups.
    weights : ndarray of shape (B, n)
        Each resample's weight of each member (multiplicities).

    Returns
    -------
    ndarray of shape (B, n_groups)
        NaN where a group has no weight in a resample.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import weighted_group_means
    >>> weighted_group_means(np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1]), 2, np.array([[1.0, 3.0, 0.0]])).tolist()
    [[2.5, nan]]
    """
    member = _membership(np.asarray(group), n_groups)
    numerator = np.asarray(member.T @ (weights * np.asarray(values)).T).T
    denominator = np.asarray(member.T @ weights.T).T
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator


def within_group_draws(values: np.ndarray, sizes: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Every group's members drawn with replacement within the group, ``n_resamples`` times.

    The members are stored group after group (``values``, with ``sizes`` members per group);
    each resample draws, within every group, as many members as it has, with replacement, and
    puts them in the group's own positions (Hoyle et al. 2021, Table 3: each topic's annotations
    resampled).

    Parameters
    ----------
    values : ndarray of shape (n,)
        Every member's value, group after group.
    sizes : ndarray of int, shape (G,)
        Each group's number of members (at least one).
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream to draw from (one uniform per member and resample).

    Returns
    -------
    ndarray of shape (n_resamples, n)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import within_group_draws
    >>> drawn = within_group_draws(np.array([1.0, 2.0, 10.0, 20.0, 30.0]), np.array([2, 3]), 4, np.random.default_rng(0))
    >>> bool(np.isin(drawn[:, :2], [1.0, 2.0]).all() and np.isin(drawn[:, 2:], [10.0, 20.0, 30.0]).all())
    True
    """
    check_draws("within_group_draws", rng, n_resamples)
    values, sizes = as_numbers(values, "values", ndim=1), np.asarray(as_numbers(sizes, "sizes", ndim=1))
    if not (np.all(sizes >= 1) and np.all(sizes == np.round(sizes)) and sizes.sum() == len(values)):
        raise InputError(
            f"within_group_draws needs sizes, whole numbers >= 1, summing to the {len(values)} values, got {sizes.tolist()!r:.80}"
        )
    sizes = sizes.astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(len(sizes)), sizes)
    picks = offsets[owner] + (rng.random((n_resamples, values.size)) * sizes[owner]).astype(np.int64)
    return values[picks]


def resampled_group_means(
    values: np.ndarray, sizes: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Each group's mean over its own members drawn with replacement (:func:`within_group_draws`).

    Parameters
    ----------
    values : ndarray of shape (n,)
        Every member's value, group after group.
    sizes : ndarray of int, shape (G,)
        Each group's number of members (at least one).
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream to draw from.

    Returns
    -------
    ndarray of shape (n_resamples, G)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import resampled_group_means
    >>> means = resampled_group_means(np.array([1.0, 1.0, 2.0, 4.0]), np.array([2, 2]), 200, np.random.default_rng(0))
    >>> bool((means[:, 0] == 1).all()), sorted(set(means[:, 1].tolist()))
    (True, [2.0, 3.0, 4.0])
    """
    draws = within_group_draws(values, sizes, n_resamples, rng)
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return np.add.reduceat(draws, offsets, axis=1) / sizes


def two_way_cluster_bootstrap(
    values: np.ndarray,
    cluster: np.ndarray,
    crossed: np.ndarray,
    strata: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Owen's (2007) pigeonhole bootstrap of crossed clusters: each stratum's mean of cluster means.

    ``values`` are observations, each in one ``cluster`` (a topic) and one level of a ``crossed``
    factor (an annotator, who answers topics of several strata); each cluster lies in one of
    ``strata`` (a model). A stratum's statistic is the mean over its clusters of the cluster's
    mean observation. Each resample draws, independently, the crossed levels with replacement
    (as many as there are; :func:`bootstrap_counts`, first) and every stratum's clusters with
    replacement (as many as it has; :func:`stratified_counts`); an observation counts as many
    times as its crossed level was drawn, a cluster as many times as it was drawn, and a drawn
    cluster none of whose crossed levels was drawn is left out of that resample (Owen 2007,
    "The pigeonhole bootstrap", Ann. Appl. Stat. 1, 386-411).

    Parameters
    ----------
    values : ndarray of shape (n,)
        The observations.
    cluster, crossed : ndarray of int, shape (n,)
        Each observation's cluster (``0 .. C-1``) and crossed level (``0 .. A-1``).
    strata : ndarray of shape (C,)
        Each cluster's stratum.
    n_resamples : int
        Resamples.
    rng : numpy.random.Generator
        The stream to draw from.

    Returns
    -------
    observed : ndarray of shape (S,)
        Each stratum's statistic on the data (strata in sorted order).
    resampled : ndarray of shape (n_resamples, S)
        The same on every resample.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import two_way_cluster_bootstrap
    >>> values = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    >>> cluster, crossed = np.array([0, 0, 1, 1, 2, 2, 3, 3]), np.array([0, 1, 0, 1, 0, 1, 0, 1])
    >>> observed, resampled = two_way_cluster_bootstrap(values, cluster, crossed, np.array([0, 0, 1, 1]), 100, np.random.default_rng(0))
    >>> observed.tolist(), resampled.shape
    ([0.75, 0.25], (100, 2))
    """
    check_draws("two_way_cluster_bootstrap", rng, n_resamples)
    n_clusters = len(strata)
    n_crossed = int(np.max(crossed)) + 1
    crossed_weight = bootstrap_counts(n_crossed, n_resamples, rng)
    cluster_weight = stratified_counts(strata, n_resamples, rng)
    means = weighted_group_means(values, cluster, n_clusters, crossed_weight[:, crossed].astype(np.float64))
    seen = ~np.isnan(means)
    means = np.where(seen, means, 0.0)
    weight = cluster_weight * seen
    member = _membership(cluster, n_clusters)
    observed_cluster = np.asarray(member.T @ values) / np.asarray(member.sum(axis=0)).ravel()
    groups = _strata(strata)
    observed = np.empty(len(groups))
    resampled = np.empty((n_resamples, len(groups)))
    for s, own in enumerate(groups):
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled[:, s] = (weight[:, own] * means[:, own]).sum(axis=1) / weight[:, own].sum(axis=1)
        observed[s] = observed_cluster[own].mean()
    return observed, resampled


def key_splits(keys: np.ndarray, n_a: int) -> np.ndarray:
    """Random splits of pooled units into groups of ``n_a`` and the rest, by each unit's random key.

    Row ``b`` puts in group A the ``n_a`` units with the smallest ``keys[b]``: with independent
    uniform keys, a uniformly random split, as :func:`random_orders` gives. The point of keys is
    sharing: a unit keeps its key in every comparison it enters, so the splits of several
    comparisons drawn from the same keys are one joint relabelling of the units (a random
    permutation of the model labels), which keeps the comparisons' dependence in a resampling
    family (Westfall and Young 1993, §2.5: one resampling of the whole data set per replicate).

    Parameters
    ----------
    keys : ndarray of shape (B, n)
        The pooled units' keys, one row a replicate.
    n_a : int
        The size of group A.

    Returns
    -------
    ndarray of bool, shape (B, n)
        True where a unit falls in group A.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import key_splits
    >>> key_splits(np.array([[0.9, 0.1, 0.5], [0.2, 0.3, 0.1]]), 2).tolist()
    [[False, True, True], [True, False, True]]
    """
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    return ranks < n_a
