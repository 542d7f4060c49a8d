"""Multiple comparisons: Holm's step-down and Bonferroni's simultaneous intervals, Benjamini-Hochberg's
step-up, the max-T bootstrap adjustment and Westfall and Young's step-down min-P over a joint resampling.

Each function adjusts the p-values of one family of tests (the pairs of models of one metric;
the metrics tested against one baseline; every pair of every metric of a report). A NaN
p-value (an untestable comparison) stays NaN and does not count in the family.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from tealeaves.errors import InputError, as_numbers, is_level
from tealeaves.stats.intervals import t_interval


def _check_alpha(owner: str, alpha: float) -> None:
    """Refuse a family-wise level that is not in (0, 0.5] (``errors.is_level``), naming the value."""
    if not is_level(alpha):
        raise InputError(f"{owner} needs alpha, the family-wise level, in (0, 0.5] (0.05), got {alpha!r}")


def _adjusted(pvalues, step: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """``step(sorted finite p-values, m)`` put back in the given order; NaN stays NaN and does not count in m."""
    p = as_numbers(pvalues, "pvalues", ndim=1)
    if np.any((p < 0) | (p > 1)):
        raise InputError(
            f"pvalues must lie in [0, 1] (NaN for an untestable comparison), got {p[(p < 0) | (p > 1)][0]!r}"
        )
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]  # smallest first, ties in their given order
    if len(order):
        out[order] = step(p[order], len(order))
    return out


def holm(pvalues) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of one family of ``m`` tests.

    With the p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted value of the
    i-th is :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1)\\, p_{(j)})`; rejecting
    where :math:`\\tilde p < \\alpha` controls the family-wise error rate at :math:`\\alpha` (Holm
    1979, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6,
    65-70). Equals ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]`` on the
    finite values.

    Parameters
    ----------
    pvalues : array-like of float
        The family's p-values; NaN for an untestable comparison.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order given.

    Examples
    --------
    Three finite p-values (m = 3): 0.01 · 3 = 0.03, then max(0.03, 0.03 · 2) = 0.06, then
    max(0.06, 0.04 · 1) = 0.06.

    >>> from tealeaves.stats import holm
    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    return _adjusted(pvalues, lambda p, m: np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p)))


def bonferroni_intervals(difference, se, df, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous intervals of one family of ``m`` differences, each tested by a t-test: Bonferroni's.

    .. math:: d_i \\pm t_{1 - \\alpha / (2m),\\, df_i}\\, se_i

    cover all ``m`` differences together with probability at least :math:`1 - \\alpha` where each
    t-test holds its level (the union bound: Dunn 1961, "Multiple comparisons among means", J. Amer.
    Statist. Assoc. 56, 52-64). The i-th excludes 0 exactly where :math:`p_i < \\alpha / m`, where
    the first step of Holm's procedure rejects, so only where :func:`holm`'s adjusted p-value is below
    :math:`\\alpha`: the intervals agree with Holm's verdicts, though Holm may find a difference whose
    interval still holds 0 (its later steps test at :math:`\\alpha / (m - j + 1)`). A comparison
    without a finite difference and a positive standard error (untestable: its p-value is NaN) gets
    a NaN interval and does not count in ``m``, as it does not in :func:`holm`.

    Parameters
    ----------
    difference, se : array-like of float
        The differences and their standard errors.
    df : array-like of float
        The t-tests' degrees of freedom (``inf``: the normal).
    alpha : float, optional
        The family-wise level.

    Returns
    -------
    tuple of ndarray
        ``(low, high)``, in the order given.

    Examples
    --------
    Two differences on 10 degrees of freedom: :math:`t_{1 - 0.05/4,\\, 10} = 2.634`.

    >>> from tealeaves.stats import bonferroni_intervals
    >>> low, high = bonferroni_intervals([0.5, 0.1], [0.1, 0.1], [10, 10])
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.2366, -0.1634], [0.7634, 0.3634])
    """
    _check_alpha("bonferroni_intervals", alpha)
    difference, se, df = (
        as_numbers(v, name, ndim=1) for v, name in ((difference, "difference"), (se, "se"), (df, "df"))
    )
    if not len(difference) == len(se) == len(df):
        raise InputError(
            f"bonferroni_intervals needs one se and df a difference, got {len(difference)}, {len(se)}, {len(df)}"
        )
    testable = np.isfinite(difference) & (se > 0)
    m = max(int(testable.sum()), 1)
    low, high = t_interval(np.where(testable, difference, np.nan), se, df, 1.0 - alpha / m)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini and Hochberg's (1995) step-up adjusted p-values (q-values) of one family of ``m`` tests.

    With the p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted value of the
    i-th is :math:`\\tilde p_{(i)} = \\min_{j \\ge i} \\min(1, m\\, p_{(j)} / j)`; rejecting where
    :math:`\\tilde p < q` controls the false discovery rate at :math:`q` for independent or
    positively dependent tests (Benjamini and Hochberg 1995, "Controlling the false discovery
    rate", J. R. Statist. Soc. B 57, 289-300). Equals
    ``statsmodels.stats.multitest.multipletests(p, method="fdr_bh")[1]`` on the finite values.

    Parameters
    ----------
    pvalues : array-like of float
        The family's p-values; NaN for an untestable comparison.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order given.

    Examples
    --------
    m = 3: the largest stays 0.04; then min(0.04, 0.03 · 3 / 2) = 0.04; then min(0.04, 0.01 · 3) = 0.03.

    >>> from tealeaves.stats import benjamini_hochberg
    >>> benjamini_hochberg([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    # p / (i / m), as statsmodels divides, then the running minimum from the largest down
    return _adjusted(
        pvalues, lambda p, m: np.minimum.accumulate(np.minimum(1.0, p / (np.arange(1, m + 1) / m))[::-1])[::-1]
    )


def max_t_pvalues(observed: np.ndarray, se: np.ndarray, resamples: Sequence[np.ndarray]) -> np.ndarray:
    """Max-T adjusted two-sided p-values of a family of bootstrap tests (Westfall and Young 1993).

    With :math:`T_i = |d_i| / \\mathrm{SE}_i` and, in resample :math:`b`, the family's largest
    centred statistic :math:`M_b = \\max_i |d^*_{i,b} - d_i| / \\mathrm{SE}_i`,
    :math:`p_i = (1 + \\#\\{M_b \\ge T_i\\}) / (B + 1)` (Westfall and Young 1993,
    *Resampling-Based Multiple Testing*, §2.6). The resamples of the family's tests are paired by
    index: those drawn together (one data set's) share the draws. Controls the family-wise error
    over the family, including the choice of the best of its members.

    Parameters
    ----------
    observed : array-like of shape (m,)
        Each test's estimate :math:`d_i`.
    se : array-like of shape (m,)
        Each estimate's bootstrap standard error.
    resamples : sequence of m arrays of shape (B,)
        Each estimate's resamples; NaN ones are left out of the maximum.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import max_t_pvalues
    >>> rng = np.random.default_rng(0)
    >>> resamples = [rng.normal(0.5, 0.1, 999), rng.normal(0.0, 0.1, 999)]
    >>> p = max_t_pvalues([0.5, 0.0], [0.1, 0.1], resamples)
    >>> bool(p[0] < 0.01 and p[1] > 0.5)
    True
    """
    d, se = as_numbers(observed, "observed", ndim=1), as_numbers(se, "se", ndim=1)
    stacked = as_numbers(list(resamples), "resamples", ndim=2)  # family x B
    if not len(d) == len(se) == len(stacked):
        raise InputError(
            f"max_t_pvalues needs one se and one row of resamples a test, got {len(d)}, {len(se)}, {len(stacked)}"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = np.abs(stacked - d[:, None]) / se[:, None]
        largest = np.nanmax(centred, axis=0)
        t = np.abs(d) / se
    return (1 + (largest[None, :] >= t[:, None]).sum(axis=1)) / (stacked.shape[1] + 1)


class StepDown(NamedTuple):
    """What :func:`westfall_young` finds for each hypothesis of its family (arrays of shape (m,)).

    ``pvalue``: the marginal resampling p-value; ``adjusted``: the step-down min-P adjusted
    p-value; ``attainable``: the smallest adjusted p-value the hypothesis could reach at all
    (its test's smallest attainable p-value, adjusted); ``critical``: the statistic beyond which
    the first step rejects it (infinite where nothing can be rejected); ``level``: :math:`c`,
    the first step rejects a marginal p-value below it (a float, the same for every hypothesis:
    the family's effective per-test level, :math:`\\alpha` over about the number of independent
    tests in the family).

    Attributes
    ----------
    pvalue, adjusted, attainable, critical : ndarray of shape (m,)
        Per hypothesis, as above (NaN for an untestable one).
    level : float
        The first step's marginal level.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import westfall_young
    >>> found = westfall_young([3.0, 0.2], np.abs(np.random.default_rng(0).normal(size=(999, 2))))
    >>> bool(found.adjusted[0] < 0.05 <= found.adjusted[1]), found.level < 0.05
    (True, True)
    """

    pvalue: np.ndarray
    adjusted: np.ndarray
    attainable: np.ndarray
    critical: np.ndarray
    level: float


def _exceedances(column: np.ndarray, at: np.ndarray) -> np.ndarray:
    """How many of ``column`` are at least each of ``at`` (up to a relative tolerance of 1e-12)."""
    ordered = np.sort(column)
    tolerance = np.where(np.isfinite(at), 1e-12 * np.maximum(1.0, np.abs(at)), 0.0)
    return len(ordered) - np.searchsorted(ordered, at - tolerance, side="left")


def westfall_young(observed, null, alpha: float = 0.05, floor=None) -> StepDown:
    """Westfall and Young's (1993) step-down min-P adjusted p-values from one joint resampling of the data.

    ``observed[j]`` is hypothesis j's test statistic (larger is more extreme) and ``null[b, j]``
    the same statistic on replicate b of a resampling under the complete null, every hypothesis
    recomputed on the same replicate (the same relabelled documents and topics), so that the
    family's dependence is kept. The marginal p-values are
    :math:`p_j = (1 + \\#\\{b: T^*_{bj} \\ge T_j\\}) / (B + 1)`, and each replicate's are
    :math:`p^*_{bj} = \\#\\{l: T_{lj} \\ge T^*_{bj}\\} / (B + 1)` over all :math:`B + 1` statistics
    (the data's :math:`T_{0j} = T_j` included); a discrete test's most extreme p-value (the
    statistic at its largest) is its ``floor``, exactly, so that discrete tests compare
    equal there whatever their Monte Carlo counts. With the hypotheses ordered
    by their p-values, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`,

    .. math:: \\tilde p_{(i)} = \\max_{k \\le i} \\frac{1 + \\#\\{b: \\min_{l \\ge k} p^*_{b(l)} \\le p_{(k)}\\}}{B + 1}

    (Westfall and Young 1993, *Resampling-Based Multiple Testing*, Algorithm 2.8). Rejecting
    where :math:`\\tilde p < \\alpha` controls the family-wise error at :math:`\\alpha` under
    subset pivotality, whatever the dependence between the tests; min-P, not max-T, because the
    family mixes statistics of different scales and discreteness (a permutation test over four
    topics, a t over a thousand documents), which min-P puts on one scale.

    Parameters
    ----------
    observed : array-like of shape (m,)
        The statistics; NaN for an untestable hypothesis (left out of the family).
    null : array-like of shape (B, m)
        The statistics on each replicate of the joint resampling; NaN ones never exceed.
    alpha : float, optional
        The family-wise level, for ``critical`` and ``level``.
    floor : array-like of shape (m,), optional
        Each test's smallest attainable marginal p-value (a permutation test over few units:
        :math:`1 / \\binom{n}{n_A}`); default 0.

    Returns
    -------
    StepDown
        Marginal and adjusted p-values, the smallest attainable adjusted p-values, the first
        step's critical statistics and marginal level.

    Examples
    --------
    Two hypotheses whose statistics are nearly the same (correlated 0.99) cost about one test,
    not two: the adjusted p-value of a marginal 0.02 stays near 0.02 (Bonferroni: 0.04).

    >>> import numpy as np
    >>> from tealeaves.stats import westfall_young
    >>> z = np.random.default_rng(0).normal(size=(9999, 1))
    >>> null = np.abs(np.hstack([z, 0.99 * z + 0.14 * np.random.default_rng(1).normal(size=(9999, 1))]))
    >>> found = westfall_young([2.326, 0.5], null)
    >>> [round(float(v), 3) for v in found.pvalue], round(float(found.adjusted[0]), 2)
    ([0.02, 0.622], 0.02)
    """
    _check_alpha("westfall_young", alpha)
    t, null = as_numbers(observed, "observed", ndim=1), as_numbers(null, "null", ndim=2)
    if null.shape[1] != len(t) or not len(null):
        raise InputError(f"westfall_young needs null of shape (B, {len(t)}), one column a statistic, got {null.shape}")
    s = np.where(np.isnan(null), -np.inf, null)
    n_resamples, m = s.shape
    floor = np.zeros(m) if floor is None else as_numbers(floor, "floor", ndim=1)
    ok = np.flatnonzero(np.isfinite(t))
    p, adjusted, attainable, critical = (np.full(m, np.nan) for _ in range(4))
    if not len(ok):
        return StepDown(p, adjusted, attainable, critical, float("nan"))
    resampled = np.empty((n_resamples, len(ok)))
    best = np.full(len(ok), 1.0 / (n_resamples + 1))  # the smallest p-value each test reaches
    for i, j in enumerate(ok):
        p[j] = (1 + _exceedances(s[:, j], t[j : j + 1])[0]) / (n_resamples + 1)
        # each replicate's p-value among all B + 1 statistics (the data's included, as in p)
        resampled[:, i] = (_exceedances(s[:, j], s[:, j]) + (t[j] >= s[:, j])) / (n_resamples + 1)
        if floor[j] > 1.0 / (n_resamples + 1):  # a discrete test: its most extreme p-value is known exactly
            top = max(float(s[:, j].max()), float(t[j]))
            top -= 1e-12 * max(1.0, abs(top))  # the largest, up to rounding
            p[j] = floor[j] if t[j] >= top else p[j]
            resampled[s[:, j] >= top, i] = best[i] = floor[j]
    order = np.argsort(p[ok], kind="stable")
    tail_min = np.minimum.accumulate(resampled[:, order][:, ::-1], axis=1)[:, ::-1]  # min over l >= k
    steps = (1 + (tail_min <= p[ok][order][None, :] * (1 + 1e-9)).sum(axis=0)) / (n_resamples + 1)
    adjusted[ok[order]] = np.minimum(1.0, np.maximum(np.maximum.accumulate(steps), p[ok][order]))  # never below p
    smallest = np.sort(tail_min[:, 0])
    attainable[ok] = (1 + np.searchsorted(smallest, best * (1 + 1e-9), side="right")) / (n_resamples + 1)
    # the first step rejects p < level: at most `allowed` replicates' min-P may lie at or below p
    allowed = math.ceil(alpha * (n_resamples + 1) - 1) - 1
    level = float(smallest[allowed]) if allowed >= 0 else 0.0
    # and p(T) < level where fewer than level (B + 1) - 1 null statistics reach T: T beyond the (beyond + 1)-th largest
    beyond = math.ceil(level * (n_resamples + 1) - 1) - 1
    descending = -np.sort(-s[:, ok], axis=0)
    critical[ok] = descending[beyond] if beyond >= 0 else np.inf
    return StepDown(p, adjusted, attainable, critical, level)
