"""Multiple comparisons: Holm's step-down, Benjamini-Hochberg's step-up and the max-T bootstrap adjustment.

Each function adjusts the p-values of one family of tests (the pairs of models of one metric;
the metrics tested against one baseline). A NaN p-value (an untestable comparison) stays NaN and
does not count in the family.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def _adjusted(pvalues, step: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """``step(sorted finite p-values, m)`` put back in the given order; NaN stays NaN and does not count in m."""
    p = np.asarray(pvalues, dtype=np.float64)
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
    d = np.asarray(observed, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    stacked = np.vstack([np.asarray(r, dtype=np.float64) for r in resamples])  # family x B
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = np.abs(stacked - d[:, None]) / se[:, None]
        largest = np.nanmax(centred, axis=0)
        t = np.abs(d) / se
    return (1 + (largest[None, :] >= t[:, None]).sum(axis=1)) / (stacked.shape[1] + 1)
