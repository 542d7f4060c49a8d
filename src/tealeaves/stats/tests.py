"""The tests: Welch's and Student's t, the paired t, permutation, randomisation, bootstrap, proportions, ranks.

Two-sided tests of a difference A − B return its estimate, standard error, interval and p-value
(:class:`~tealeaves.stats.TestResult`): :func:`welch_test` (two groups, unequal variances),
:func:`paired_t_test` (paired series), :func:`t_test_of_estimate` (any estimate with a standard
error and degrees of freedom), :func:`jackknife_difference_test` (two statistics with jackknife
standard errors), :func:`permutation_test` (difference of means, exact in level),
:func:`randomisation_test` (any statistic of a set of units, exact in level) and
:func:`bootstrap_z_test` (an estimate with its bootstrap standard error).

Hoyle et al.'s (2021, §6.1) one-tailed tests compute the same statistics as
``statsmodels.stats.proportion.proportions_ztest`` (:func:`proportion_test`),
``scipy.stats.ttest_ind`` with pooled variance (:func:`t_test`, :func:`t_test_moments`) and
``scipy.stats.mannwhitneyu`` with the asymptotic method (:func:`mann_whitney`,
:func:`mann_whitney_counts`), vectorised over leading axes so that simulations (false discovery
rates, power) run thousands of tests at once. They take ``value``, the difference under the
null, so the same functions give Hoyle A.5.1's non-inferiority tests (``H0: mean_a - mean_b >=
value`` against ``alternative="smaller"``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy import stats

from tealeaves.errors import InputError, as_numbers, check_each, is_count, is_real
from tealeaves.stats.intervals import CONFIDENCE, bootstrap_se, check_confidence, jackknife_se, t_interval
from tealeaves.stats.resampling import check_draws, random_orders, ratio_deviations
from tealeaves.stats.result import TestResult

Alternative = Literal["greater", "smaller"]
PERMUTATIONS = 9999  # random relabellings of the permutation test
REGROUPINGS = 1999  # random regroupings of the randomisation test
SWAP_BLOCK = 2_000_000  # units x swaps held in memory at once by swapped_paired_moments


def _tail(z: np.ndarray, alternative: Alternative, dist=stats.norm, **kw) -> np.ndarray:
    if alternative == "greater":
        return dist.sf(z, **kw)
    if alternative == "smaller":
        return dist.cdf(z, **kw)
    raise InputError(f"alternative must be 'greater' or 'smaller', got {alternative!r}")


def _groups(owner: str, a, b, least: Literal[1, 2], batched: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` as float arrays of at least ``least`` (1 or 2) values each (along the last axis where ``batched``,
    else one list each), or an InputError naming what is wrong."""
    a, b = (as_numbers(x, name, ndim=None if batched else 1, batched=batched) for x, name in ((a, "a"), (b, "b")))
    if a.shape[-1] < least or b.shape[-1] < least:
        raise InputError(
            f"{owner} needs at least {('one value', 'two values')[least - 1]} per group, got {a.shape[-1]} and {b.shape[-1]}"
        )
    return a, b


def _scalar(x):
    """A 0-d array as a float; arrays as they are."""
    return float(x) if np.ndim(x) == 0 else x


def satterthwaite_df(var_a, var_b, n_a, n_b):
    """Welch-Satterthwaite degrees of freedom of a difference of two independent estimates.

    .. math:: \\nu = \\frac{(v_a + v_b)^2}{v_a^2 / (n_a - 1) + v_b^2 / (n_b - 1)}

    with :math:`v` each estimate's variance (:math:`s^2/n` for a mean) and :math:`n` its units
    (Welch 1947; Satterthwaite 1946). NaN where both variances are 0.

    Parameters
    ----------
    var_a, var_b : float or array-like
        The two estimates' variances.
    n_a, n_b : int or array-like
        Their units.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from tealeaves.stats import satterthwaite_df
    >>> round(satterthwaite_df(0.01, 0.01, 10, 10), 6)
    18.0
    """
    var_a, var_b = np.asarray(var_a, dtype=np.float64), np.asarray(var_b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar((var_a + var_b) ** 2 / (var_a**2 / (n_a - 1) + var_b**2 / (n_b - 1)))


def welch_test(a, b, confidence: float = CONFIDENCE) -> TestResult:
    """Welch's two-sample t-test, two-sided, along the last axis (Welch 1947).

    .. math:: t = \\frac{\\bar a - \\bar b}{\\sqrt{s_a^2/n_a + s_b^2/n_b}}

    on the Welch-Satterthwaite degrees of freedom (:func:`satterthwaite_df`), with the two-sided
    p-value :math:`2 P(T_\\nu > |t|)` and the t interval :math:`\\bar a - \\bar b \\pm
    t_{(1+c)/2, \\nu}\\, se`; the same as ``scipy.stats.ttest_ind(a, b, equal_var=False)`` and
    its ``confidence_interval``. Two groups without any variation have no standard error: their
    statistic and p-value are NaN (untestable), never 0.

    Parameters
    ----------
    a, b : array-like of shape (..., n_a) and (..., n_b)
        The two groups' values along the last axis (at least two each); leading axes
        broadcast.
    confidence : float, optional
        The interval's coverage.

    Returns
    -------
    TestResult
        ``statistic`` is t, ``difference`` the difference of means.

    Raises
    ------
    InputError
        When a group has fewer than two values.

    Examples
    --------
    >>> from tealeaves.stats import welch_test
    >>> result = welch_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12, 0.02])
    >>> round(result.statistic, 4), round(result.pvalue, 4), round(result.df, 2)
    (2.5044, 0.0462, 6.0)
    >>> welch_test([0.1, 0.1], [0.2, 0.2]).pvalue  # no variation: untestable
    nan
    """
    a, b = _groups("Welch's test", a, b, 2, batched=True)
    n_a, n_b = a.shape[-1], b.shape[-1]
    var_a, var_b = a.var(axis=-1, ddof=1) / n_a, b.var(axis=-1, ddof=1) / n_b
    se = np.sqrt(var_a + var_b)
    df = satterthwaite_df(var_a, var_b, n_a, n_b)
    difference = a.mean(axis=-1) - b.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, difference / se, np.nan)
    low, high = t_interval(difference, se, df, confidence)
    return TestResult(
        "Welch's t",
        _scalar(t),
        _scalar(2 * stats.t.sf(np.abs(t), df)),
        difference=_scalar(difference),
        se=_scalar(se),
        df=df,
        ci_low=low,
        ci_high=high,
        n=n_a + n_b,
    )


def t_test_of_estimate(
    difference: float, se: float, df: float, *, test: str = "t", n: int = 0, confidence: float = CONFIDENCE
) -> TestResult:
    """The two-sided t-test of :math:`\\theta = 0` from an estimate, its standard error and degrees of freedom.

    :math:`t = \\hat\\theta / se`, :math:`p = 2 P(T_{df} > |t|)`, with the t interval
    :math:`\\hat\\theta \\pm t_{(1+c)/2, df}\\, se` (:func:`~tealeaves.stats.t_interval`). Where
    the standard error is 0 (no spread at all) there is nothing to scale by: the p-value is 1
    when the estimate is 0 too (nothing to find) and NaN otherwise, the interval the point.

    Parameters
    ----------
    difference : float
        The estimate :math:`\\hat\\theta` (a difference A − B).
    se : float
        Its standard error.
    df : float
        Degrees of freedom.
    test : str, optional
        The test's name in the result.
    n : int, optional
        The units, for the result.
    confidence : float, optional
        The interval's coverage.

    Returns
    -------
    TestResult

    Examples
    --------
    >>> from tealeaves.stats import t_test_of_estimate
    >>> result = t_test_of_estimate(0.5, 0.2, 30, test="paired t")
    >>> round(result.statistic, 2), round(result.pvalue, 4)
    (2.5, 0.0181)
    >>> t_test_of_estimate(0.0, 0.0, 30).pvalue
    1.0
    """
    check_each(
        test,
        [
            (is_real(difference), "a number for the difference", difference),
            (is_real(se) and not se < 0, "a standard error >= 0 (a number)", se),
            (is_real(df), "a number of degrees of freedom", df),
        ],
    )
    if not se > 0:
        p = 1.0 if difference == 0 else math.nan
        return TestResult(
            test, math.nan, p, difference=difference, se=0.0, df=df, ci_low=difference, ci_high=difference, n=n
        )
    low, high = t_interval(difference, se, df, confidence)
    p = float(2 * stats.t.sf(abs(difference) / se, df))
    return TestResult(test, difference / se, p, difference=difference, se=se, df=df, ci_low=low, ci_high=high, n=n)


def paired_t_test(a, b, confidence: float = CONFIDENCE) -> TestResult:
    """The paired t-test of two series over the same units, two-sided.

    With :math:`d_i = a_i - b_i`, :math:`t = \\bar d / (s_d / \\sqrt n)` on :math:`n - 1`
    degrees of freedom (:func:`t_test_of_estimate`); the same as ``scipy.stats.ttest_rel``.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        The two series, aligned by unit.
    confidence : float, optional
        The interval's coverage.

    Returns
    -------
    TestResult
        ``difference`` is :math:`\\bar d`, ``n`` the pairs.

    Examples
    --------
    >>> from tealeaves.stats import paired_t_test
    >>> result = paired_t_test([1.1, 2.3, 2.9, 4.4], [1.0, 2.0, 3.0, 4.0])
    >>> round(result.difference, 3), round(result.pvalue, 4)
    (0.175, 0.2126)
    """
    a, b = _groups("the paired t-test", a, b, 2)
    if len(a) != len(b):
        raise InputError(
            f"the paired t-test needs the two series over the same units, got {len(a)} and {len(b)} values"
        )
    d = a - b
    se = float(d.std(ddof=1) / np.sqrt(len(d)))
    return t_test_of_estimate(float(d.mean()), se, len(d) - 1.0, test="paired t", n=len(d), confidence=confidence)


def jackknife_difference_test(
    a: tuple[float, np.ndarray], b: tuple[float, np.ndarray], confidence: float = CONFIDENCE
) -> TestResult:
    """The t-test of the difference of two statistics of independent samples, with jackknife standard errors.

    ``a`` and ``b`` are each (the statistic, its leave-one-unit-out values);
    :math:`se = \\sqrt{se_A^2 + se_B^2}` with Tukey's jackknife standard errors
    (:func:`~tealeaves.stats.jackknife_se`), on the Welch-Satterthwaite degrees of freedom
    (:func:`satterthwaite_df`; :math:`n_A + n_B - 2` where neither varies), tested by
    :func:`t_test_of_estimate`.

    Parameters
    ----------
    a, b : tuple of (float, ndarray)
        Each sample's statistic and its leave-one-out values.
    confidence : float, optional
        The interval's coverage.

    Returns
    -------
    TestResult

    Examples
    --------
    The means of two samples, whose jackknife standard errors are :math:`s / \\sqrt n`:

    >>> import numpy as np
    >>> from tealeaves.stats import jackknife_difference_test, welch_test
    >>> x, y = np.array([1.0, 2.0, 4.0, 7.0]), np.array([0.0, 1.0, 1.0, 2.0, 3.0])
    >>> loo = lambda v: (v.sum() - v) / (len(v) - 1)
    >>> result = jackknife_difference_test((x.mean(), loo(x)), (y.mean(), loo(y)))
    >>> round(result.pvalue, 6) == round(welch_test(x, y).pvalue, 6)
    True
    """
    (value_a, loo_a), (value_b, loo_b) = a, b
    var_a, var_b = jackknife_se(loo_a) ** 2, jackknife_se(loo_b) ** 2
    df = satterthwaite_df(var_a, var_b, len(loo_a), len(loo_b))
    df = float(df) if np.isfinite(df) else float(len(loo_a) + len(loo_b) - 2)
    se = float(np.sqrt(var_a + var_b))
    return t_test_of_estimate(
        value_a - value_b, se, df, test="jackknife t", n=len(loo_a) + len(loo_b), confidence=confidence
    )


def permutation_test(
    a, b, rng: np.random.Generator, n_resamples: int = PERMUTATIONS, confidence: float = CONFIDENCE
) -> TestResult:
    """A two-sided permutation test of the difference of means (random relabellings).

    The two groups are pooled and relabelled at random ``n_resamples`` times;

    .. math:: p = \\frac{1 + \\#\\{|\\bar a^* - \\bar b^*| \\ge |\\bar a - \\bar b|\\}}{1 + P},

    exact in level for any distribution (the labels are exchangeable under the null; Phipson
    and Smyth 2010), and defined where Welch's t is not (two groups without spread, where t
    would be infinite; very few values). The interval and standard error are Welch's where the
    groups vary, the standard error 0 where they do not.

    Parameters
    ----------
    a, b : array-like
        The two groups' values.
    rng : numpy.random.Generator
        The stream of the relabellings (the caller's family,
        :func:`tealeaves.rng.family_generator`).
    n_resamples : int, optional
        Relabellings P.
    confidence : float, optional
        The interval's coverage.

    Returns
    -------
    TestResult
        ``df`` is NaN (the test has none).

    Examples
    --------
    Two constant groups apart: no relabelling is as extreme, so p is the smallest it can be.

    >>> import numpy as np
    >>> from tealeaves.stats import permutation_test
    >>> permutation_test(np.ones(20), np.zeros(20), np.random.default_rng(0)).pvalue
    0.0001
    """
    check_confidence(confidence)
    check_draws("permutation_test", rng, n_resamples)
    a, b = _groups("permutation_test", a, b, 1)
    pooled = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    shuffled = pooled[random_orders(rng, n_resamples, len(pooled))]
    diffs = np.abs(shuffled[:, : len(a)].mean(axis=1) - shuffled[:, len(a) :].mean(axis=1))
    p = (1 + int(np.sum(diffs >= observed - 1e-12 * max(1.0, observed)))) / (1 + n_resamples)
    spread = len(a) > 1 and len(b) > 1 and (a.var() > 0 or b.var() > 0)
    welch = welch_test(a, b, confidence) if spread else None
    return TestResult(
        "permutation",
        pvalue=p,
        difference=float(a.mean() - b.mean()),
        se=welch.se if welch else 0.0,
        ci_low=welch.ci_low if welch else math.nan,
        ci_high=welch.ci_high if welch else math.nan,
        n=len(pooled),
    )


def randomisation_test(
    quantity: Callable[[np.ndarray], np.ndarray],
    n_a: int,
    n: int,
    rng: np.random.Generator,
    n_resamples: int = REGROUPINGS,
) -> TestResult:
    """The two-sided randomisation test of the difference of a statistic of two sets of units, exact in level.

    Under the null the ``n`` pooled units (the first ``n_a`` of group A) are exchangeable: the
    test recomputes the statistic :math:`Q` of ``n_resamples`` random splits into groups of
    :math:`n_A` and :math:`n - n_A` units and ranks the observed :math:`|Q_A - Q_B|` among the
    splits' :math:`|Q^*_A - Q^*_B|`. Statistics that are ratios of counts often tie with the
    observed value; ties are broken at random (the randomised p-value),

    .. math:: p = \\frac{\\#\\{>\\} + U (1 + \\#\\{=\\})}{1 + P}, \\quad U \\sim U(0, 1),

    which is uniform under the null for any P (Fisher 1935; Lehmann and Romano 2005, §15.2).

    Parameters
    ----------
    quantity : callable
        Boolean masks of shape (R, n), one row a group of units, -> the statistic of each row.
    n_a, n : int
        The units of group A (the first ``n_a``) and of both groups.
    rng : numpy.random.Generator
        The stream of the splits and of U.
    n_resamples : int, optional
        Random splits P.

    Returns
    -------
    TestResult
        ``statistic`` and ``difference`` are the observed :math:`Q_A - Q_B`.

    Examples
    --------
    The mean of ten units, five clearly above the other five:

    >>> import numpy as np
    >>> from tealeaves.stats import randomisation_test
    >>> x = np.array([5.0, 6, 7, 8, 9, 0, 1, 2, 3, 4])
    >>> result = randomisation_test(lambda rows: rows @ x / rows.sum(axis=1), 5, 10, np.random.default_rng(0), 999)
    >>> result.difference, result.pvalue < 0.01
    (5.0, True)
    """
    check_draws("randomisation_test", rng, n_resamples)
    check_each(
        "randomisation_test",
        [
            (callable(quantity), "quantity, a function of the groups' masks", quantity),
            (is_count(n, 2), "n >= 2 units (a whole number)", n),
            (is_count(n_a) and is_count(n, 2) and n_a < n, "0 < n_a < n (a whole number)", n_a),
        ],
    )
    groups = np.zeros((n_resamples + 1, n), dtype=bool)
    groups[0, :n_a] = True  # the observed grouping
    np.put_along_axis(groups[1:], random_orders(rng, n_resamples, n)[:, :n_a], True, axis=1)
    q_a, q_b = quantity(groups), quantity(~groups)
    differences = np.abs(q_a - q_b)
    tolerance = 1e-12 * max(1.0, differences[0])
    above = int(np.sum(differences[1:] > differences[0] + tolerance))
    tied = int(np.sum(np.abs(differences[1:] - differences[0]) <= tolerance))
    p = float((above + rng.random() * (1 + tied)) / (1 + n_resamples))
    observed = float(q_a[0] - q_b[0])
    return TestResult("randomisation", observed, p, difference=observed, n=n)


def split_welch_statistics(pooled, groups: np.ndarray) -> np.ndarray:
    """:math:`|t|` of Welch's statistic for each row's split of the pooled values into A (True) and B.

    .. math:: |t| = \\frac{|\\bar x_A - \\bar x_B|}{\\sqrt{s_A^2 / n_A + s_B^2 / n_B}}

    for every row of ``groups`` at once (the permutation distribution of Welch's t); NaN where
    both groups of a row are constant.

    Parameters
    ----------
    pooled : array-like of shape (n,)
        The pooled values.
    groups : ndarray of bool, shape (B, n)
        Each row's group A; at least two values in each group.

    Returns
    -------
    ndarray of shape (B,)

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import split_welch_statistics, welch_test
    >>> x = np.array([0.12, 0.15, 0.11, 0.14, 0.08, 0.10, 0.09, 0.12, 0.02])
    >>> groups = np.arange(9)[None, :] < 4
    >>> round(float(split_welch_statistics(x, groups)[0]), 4), round(welch_test(x[:4], x[4:]).statistic, 4)
    (2.5044, 2.5044)
    """
    x = np.asarray(pooled, dtype=np.float64)
    x = x - x.mean()  # centred: the sums of squares below lose no digits
    g = np.asarray(groups, dtype=np.float64)
    n_a = g.sum(axis=1)
    n_b = len(x) - n_a
    sum_a, sq_a = g @ x, g @ x**2
    sum_b, sq_b = x.sum() - sum_a, (x**2).sum() - sq_a
    mean_a, mean_b = sum_a / n_a, sum_b / n_b
    var_a = np.maximum(sq_a - n_a * mean_a**2, 0.0) / (n_a - 1)
    var_b = np.maximum(sq_b - n_b * mean_b**2, 0.0) / (n_b - 1)
    se = np.sqrt(var_a / n_a + var_b / n_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, np.abs(mean_a - mean_b) / se, np.nan)


def studentised_permutation_test(
    a, b, rng: np.random.Generator, n_resamples: int = PERMUTATIONS, confidence: float = CONFIDENCE
) -> TestResult:
    """The studentised permutation test of a difference of means (Chung and Romano 2013), two-sided.

    Welch's :math:`|t|` (:func:`welch_test`) is ranked among its values on ``n_resamples``
    random relabellings of the pooled values (:func:`split_welch_statistics`):
    :math:`p = (1 + \\#\\{|t^*| \\ge |t|\\}) / (1 + P)`. Exact in level when the two groups
    are exchangeable (same distribution), and, unlike the permutation test of the raw
    difference (:func:`permutation_test`) or Welch's t on its t distribution, asymptotically
    exact when only their means are equal and their variances and shapes differ: studentising
    makes the permutation distribution and the statistic's sampling distribution share their
    limit (Chung and Romano 2013, "Exact and asymptotically robust permutation tests", Ann.
    Statist. 41, 484-507). ``benchmarks/calibration_verdicts.py`` shows its level under
    opposite skews (Gamma skewness +2 against −2) at 5 to 50 topics, where Welch's t rejects up
    to 2.6 times too often.

    Parameters
    ----------
    a, b : array-like
        The two groups' values (at least two each, not all equal).
    rng : numpy.random.Generator
        The stream of the relabellings (the caller's family).
    n_resamples : int, optional
        Random relabellings P.
    confidence : float, optional
        The coverage of the (Welch t) interval in the result.

    Returns
    -------
    TestResult
        Welch's statistic, difference, standard error, degrees of freedom and interval, with
        the permutation p-value.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import studentised_permutation_test
    >>> result = studentised_permutation_test([0.12, 0.15, 0.11, 0.14, 0.13], [0.08, 0.10, 0.09, 0.12, 0.02],
    ...                                       np.random.default_rng(0), 999)
    >>> result.test, round(result.statistic, 3), round(result.pvalue, 3)
    ('studentised permutation', 2.626, 0.022)
    """
    check_confidence(confidence)
    check_draws("studentised_permutation_test", rng, n_resamples)
    a, b = _groups("studentised_permutation_test", a, b, 2)
    welch = welch_test(a, b, confidence)
    pooled = np.concatenate([a, b])
    groups = random_orders(rng, n_resamples, len(pooled)) < len(a)
    null = split_welch_statistics(pooled, groups)
    observed = abs(float(welch.statistic))
    p = (1 + int(np.sum(null >= observed * (1 - 1e-12)))) / (1 + n_resamples)
    return dataclasses.replace(welch, test="studentised permutation", pvalue=p)


def swapped_paired_statistics(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], swaps: np.ndarray
) -> np.ndarray:
    """:math:`|t|` of the paired t-test of two ratios (linearised) with the two series swapped on some units.

    ``a`` and ``b`` are (values, weights) over the same ``n`` units (held-out documents: log
    likelihood and tokens); in row r, the units where ``swaps[r]`` is True exchange the two
    series' (value, weight). Each series' ratio :math:`R = \\sum v / \\sum w` is then recomputed,
    and so are its linearised contributions :math:`u_i = R + (v_i - R w_i) / \\bar w`, and the
    statistic is :math:`|\\bar d| / (s_d / \\sqrt n)` with :math:`d = u^A - u^B` (the paired t on
    linearised contributions; row all False: the data's). Swapping the models' values of a unit
    is a relabelling that leaves the data's distribution unchanged when the models are
    exchangeable on each unit: the paired randomisation test (Fisher 1935), studentised so that
    it stays valid for a difference of means alone (Janssen 1999, "Testing nonparametric
    statistical functionals with applications to rank tests", J. Statist. Plann. Inference 81,
    71-93).

    Parameters
    ----------
    a, b : tuple of ndarray
        The two series' values and weights, shape (n,) each.
    swaps : ndarray of bool, shape (B, n)
        Where each row swaps the series.

    Returns
    -------
    ndarray of shape (B,)

    Examples
    --------
    Equal weights: the paired t of the values; swapping every unit flips the sign only.

    >>> import numpy as np
    >>> from tealeaves.stats import paired_t_test, swapped_paired_statistics
    >>> a, b, w = np.array([1.1, 2.3, 2.9, 4.4]), np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4)
    >>> t = swapped_paired_statistics((a, w), (b, w), np.array([[False] * 4, [True] * 4]))
    >>> [round(float(v), 4) for v in t], round(paired_t_test(a, b).statistic, 4)
    ([1.5785, 1.5785], 1.5785)
    """
    mean, variance = swapped_paired_moments(a, b, swaps)
    se = np.sqrt(variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, np.abs(mean) / se, np.nan)


def swapped_paired_moments(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], swaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The mean difference :math:`\\bar d` of two ratios' linearised contributions and its squared
    standard error :math:`s_d^2 / n`, with the two series swapped on some units (each row of
    ``swaps``): the parts of :func:`swapped_paired_statistics`' :math:`|t|`, computed in blocks of
    rows so that memory stays bounded for many units.

    Parameters
    ----------
    a, b, swaps : tuple of ndarray, tuple of ndarray, ndarray of bool
        As :func:`swapped_paired_statistics` takes them.

    Returns
    -------
    tuple of ndarray
        :math:`\\bar d` and :math:`s_d^2 / n`, shape (B,) each.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import swapped_paired_moments
    >>> a, b, w = np.array([1.1, 2.3, 2.9, 4.4]), np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4)
    >>> mean, variance = swapped_paired_moments((a, w), (b, w), np.array([[False] * 4, [True] * 4]))
    >>> [round(float(m), 3) for m in mean], round(float(variance[0]), 5)
    ([0.175, -0.175], 0.01229)
    """
    (va, wa), (vb, wb) = ((np.asarray(v, dtype=np.float64), np.asarray(w, dtype=np.float64)) for v, w in (a, b))
    swaps = np.asarray(swaps, dtype=bool)
    mean, variance = np.empty(len(swaps)), np.empty(len(swaps))
    block = max(1, SWAP_BLOCK // max(1, swaps.shape[1]))
    for start in range(0, len(swaps), block):
        rows = swaps[start : start + block]
        contributions = []
        for v, w, other_v, other_w in ((va, wa, vb, wb), (vb, wb, va, wa)):
            r, deviations = ratio_deviations(np.where(rows, other_v, v), np.where(rows, other_w, w))
            contributions.append(r[:, None] + deviations)
        d = contributions[0] - contributions[1]
        mean[start : start + block] = d.mean(axis=1)
        variance[start : start + block] = d.var(axis=1, ddof=1) / d.shape[1]
    return mean, variance


def bootstrap_z_test(
    difference: float,
    resamples: np.ndarray,
    confidence: float = CONFIDENCE,
    *,
    test: str = "bootstrap",
    n: int = 0,
    estimand: str = "",
    resampled: str = "",
) -> TestResult:
    """The two-sided normal test of an estimate with its bootstrap standard error.

    With :math:`\\widehat{se}` the standard deviation of the resampled estimates
    (:func:`~tealeaves.stats.bootstrap_se`), :math:`z = d / \\widehat{se}`,
    :math:`p = 2\\Phi(-|z|)` and the interval :math:`d \\pm z_{(1+c)/2}\\, \\widehat{se}`
    (Efron and Tibshirani 1993, ch. 12.2, 16.4). NaN statistic and p where the resamples do not
    vary.

    Parameters
    ----------
    difference : float
        The estimate on the data, :math:`d`.
    resamples : array-like
        The estimate on every resample (NaN ones are left out of the standard error).
    confidence : float, optional
        The interval's coverage.
    test, estimand, resampled : str, optional
        The test's name, what ``difference`` is a difference of, what was resampled.
    n : int, optional
        The units.

    Returns
    -------
    TestResult
        ``resamples`` holds the resampled estimates.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.stats import bootstrap_z_test
    >>> result = bootstrap_z_test(0.3, np.random.default_rng(0).normal(0.3, 0.1, 4000))
    >>> round(result.se, 2), result.pvalue < 0.01
    (0.1, True)
    """
    check_confidence(confidence)
    if not is_real(difference):
        raise InputError(f"bootstrap_z_test needs a number for the difference, got {difference!r}")
    resamples = as_numbers(resamples, "resamples", ndim=1)
    se = bootstrap_se(resamples)
    z = stats.norm.ppf(0.5 + confidence / 2)
    tested = se > 0
    return TestResult(
        test,
        difference / se if tested else math.nan,
        float(2 * stats.norm.sf(abs(difference) / se)) if tested else math.nan,
        difference=difference,
        se=se,
        ci_low=difference - z * se,
        ci_high=difference + z * se,
        n=n,
        estimand=estimand,
        resampled=resampled,
        resamples=resamples,
    )


def proportion_test(
    count_a, nobs_a, count_b, nobs_b, alternative: Alternative = "greater", value: float = 0.0
) -> TestResult:
    """Two-proportion z-test with the pooled variance (Hoyle et al. 2021 §6.1, intrusion).

    .. math:: z = \\frac{\\hat p_a - \\hat p_b - v}{\\sqrt{\\bar p (1-\\bar p)(1/n_a + 1/n_b)}},
              \\quad \\bar p = \\frac{c_a + c_b}{n_a + n_b}

    with :math:`\\hat p = c / n`; the one-tailed p-value is ``P(Z > z)`` for ``greater`` and
    ``P(Z < z)`` for ``smaller``. Equals ``statsmodels.stats.proportion.proportions_ztest(
    [c_a, c_b], [n_a, n_b], value=v, alternative="larger"|"smaller")``.

    Parameters
    ----------
    count_a, nobs_a, count_b, nobs_b : int or array-like
        Successes (correct answers) and trials of models a and b; arrays broadcast, so many
        tests run at once.
    alternative : {"greater", "smaller"}, optional
        ``greater`` tests :math:`p_a - p_b > v`, ``smaller`` tests :math:`p_a - p_b < v`.
    value : float, optional
        The difference :math:`v` under the null hypothesis (0: equal proportions).

    Returns
    -------
    TestResult
        ``statistic`` is z, ``difference`` :math:`\\hat p_a - \\hat p_b`.

    Raises
    ------
    InputError
        When a group has no observation.

    Examples
    --------
    Model a's intruders were found 30 times in 40, model b's 20 times in 40: pooled
    :math:`\\bar p = 0.625`, :math:`z = 0.25 / \\sqrt{0.625 \\cdot 0.375 \\cdot 0.05} = 2.309`.

    >>> from tealeaves.stats import proportion_test
    >>> result = proportion_test(30, 40, 20, 40)
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.3094, 0.0105)
    """
    ca, na, cb, nb = (
        as_numbers(v, name)
        for v, name in ((count_a, "count_a"), (nobs_a, "nobs_a"), (count_b, "count_b"), (nobs_b, "nobs_b"))
    )
    if not (np.all(na > 0) and np.all(nb > 0)):
        raise InputError("proportion_test needs at least one observation in each group")
    if not (np.all((ca >= 0) & (ca <= na)) and np.all((cb >= 0) & (cb <= nb))):
        raise InputError(
            f"proportion_test needs counts between 0 and their observations, got {count_a!r:.60} of {nobs_a!r:.60} "
            f"and {count_b!r:.60} of {nobs_b!r:.60}"
        )
    if not is_real(value):
        raise InputError(f"proportion_test needs a number for value, got {value!r}")
    pooled = (ca + cb) / (na + nb)
    difference = ca / na - cb / nb
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (difference - value) / np.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    return TestResult(
        "two-proportion z", _scalar(z), _scalar(_tail(z, alternative)), alternative, difference=_scalar(difference)
    )


def t_test(a, b, alternative: Alternative = "greater", value: float = 0.0) -> TestResult:
    """Student's two-sample t-test with pooled variance, along the last axis (Hoyle §6.1, metrics).

    .. math:: t = \\frac{\\bar a - \\bar b - v}{s_p\\sqrt{1/n_a + 1/n_b}},\\quad
              s_p^2 = \\frac{(n_a-1)s_a^2 + (n_b-1)s_b^2}{n_a+n_b-2}

    with :math:`n_a + n_b - 2` degrees of freedom. Equals ``scipy.stats.ttest_ind(a - v, b,
    alternative="greater"|"less")`` (and statsmodels' ``ttest_ind(a, b, value=v)``).

    Parameters
    ----------
    a, b : array-like of shape (..., n_a) and (..., n_b)
        The two groups' values (per-topic scores of two models) along the last axis; leading
        axes broadcast (batched tests).
    alternative : {"greater", "smaller"}, optional
        ``greater`` tests :math:`\\mu_a - \\mu_b > v`, ``smaller`` tests :math:`\\mu_a - \\mu_b < v`.
    value : float, optional
        The difference :math:`v` under the null hypothesis.

    Returns
    -------
    TestResult
        ``statistic`` is t; ``difference``, ``se`` and ``df`` those of :math:`\\bar a - \\bar b`.

    Raises
    ------
    InputError
        When a group has fewer than two values.

    Examples
    --------
    Means 0.13 and 0.0975, pooled variance 0.0003125, so
    :math:`t = 0.0325 / \\sqrt{0.000313 \\cdot 0.5} = 2.6` with 6 degrees of freedom.

    >>> from tealeaves.stats import t_test
    >>> result = t_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12])
    >>> round(result.statistic, 4), round(result.pvalue, 4), result.df
    (2.6, 0.0203, 6.0)
    """
    a, b = _groups("t_test", a, b, 2, batched=True)
    if not is_real(value):
        raise InputError(f"t_test needs a number for value, got {value!r}")
    na, nb = a.shape[-1], b.shape[-1]
    return t_test_moments(
        a.mean(axis=-1),
        a.var(axis=-1, ddof=1) if na > 1 else np.nan,
        na,
        b.mean(axis=-1),
        b.var(axis=-1, ddof=1) if nb > 1 else np.nan,
        nb,
        alternative,
        value,
    )


def t_test_moments(
    mean_a, var_a, n_a, mean_b, var_b, n_b, alternative: Alternative = "greater", value: float = 0.0
) -> TestResult:
    """:func:`t_test` from each group's mean, unbiased variance and size (arrays broadcast).

    Parameters
    ----------
    mean_a, var_a, n_a, mean_b, var_b, n_b : float or array-like
        Each group's mean, variance (ddof 1) and size (at least 2).
    alternative : {"greater", "smaller"}, optional
        As :func:`t_test`.
    value : float, optional
        The difference under the null hypothesis.

    Returns
    -------
    TestResult

    Raises
    ------
    InputError
        When a group has fewer than two values.

    Examples
    --------
    >>> from tealeaves.stats import t_test_moments
    >>> round(t_test_moments(0.13, 0.00043, 4, 0.0975, 0.00029, 4).statistic, 3)
    2.422
    """
    n_a = np.asarray(n_a, dtype=np.float64)
    n_b = np.asarray(n_b, dtype=np.float64)
    if np.any(n_a < 2) or np.any(n_b < 2):
        raise InputError("t_test needs at least two values per group")
    df = n_a + n_b - 2
    pooled = ((n_a - 1) * np.asarray(var_a) + (n_b - 1) * np.asarray(var_b)) / df
    difference = np.asarray(mean_a) - np.asarray(mean_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(pooled * (1 / n_a + 1 / n_b))
        t = (difference - value) / se
    return TestResult(
        "Student t",
        _scalar(t),
        _scalar(_tail(t, alternative, stats.t, df=df)),
        alternative,
        difference=_scalar(difference),
        se=_scalar(se),
        df=_scalar(df),
    )


def mann_whitney_counts(counts_a, counts_b, alternative: Alternative = "greater") -> TestResult:
    """Mann-Whitney U test for ordinal data given as counts per category (last axis, low to high).

    With :math:`a_j, b_j` the number of responses in category :math:`j`,
    :math:`U_a = \\sum_j a_j (\\sum_{i<j} b_i + b_j / 2)` and, with the tie correction and the
    continuity correction of the normal approximation (Mann & Whitney 1947),

    .. math:: z = \\frac{U_a - n_a n_b / 2 \\mp 1/2}{\\sqrt{\\frac{n_a n_b}{12}\\left(n + 1 -
              \\frac{\\sum_j (t_j^3 - t_j)}{n(n-1)}\\right)}}

    where :math:`t_j = a_j + b_j`. Equals ``scipy.stats.mannwhitneyu(x, y, method="asymptotic")``
    on the expanded responses; the count form makes simulations over many samples cheap.

    Parameters
    ----------
    counts_a, counts_b : array-like of shape (..., C)
        Responses per category, from the lowest to the highest, of each group; leading axes
        broadcast (batched tests).
    alternative : {"greater", "smaller"}, optional
        Whether a's responses tend to be higher (``greater``) or lower than b's.

    Returns
    -------
    TestResult
        ``statistic`` is :math:`U_a`.

    Examples
    --------
    Ratings 1-3: model a got 1, 2 and 5 of them, model b 4, 3 and 1, so
    :math:`U_a = 1 \\cdot 2 + 2 \\cdot (4 + 1.5) + 5 \\cdot (7 + 0.5) = 50.5`.

    >>> from tealeaves.stats import mann_whitney_counts
    >>> result = mann_whitney_counts([1, 2, 5], [4, 3, 1])
    >>> float(result.statistic), round(result.pvalue, 4)
    (50.5, 0.0225)
    """
    a, b = (as_numbers(x, name, batched=True) for x, name in ((counts_a, "counts_a"), (counts_b, "counts_b")))
    if a.shape[-1] != b.shape[-1]:
        raise InputError(
            f"mann_whitney_counts needs counts over the same categories, got {a.shape[-1]} and {b.shape[-1]}"
        )
    if not (np.all(a >= 0) and np.all(b >= 0)):
        raise InputError("mann_whitney_counts needs counts of responses (numbers >= 0), got a negative or NaN count")
    na, nb = a.sum(axis=-1), b.sum(axis=-1)
    below_b = np.cumsum(b, axis=-1) - b
    u = (a * (below_b + b / 2)).sum(axis=-1)
    t = a + b
    n = na + nb
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = np.sqrt(na * nb / 12 * ((n + 1) - (t**3 - t).sum(axis=-1) / (n * (n - 1))))
        shift = 0.5 if alternative == "greater" else -0.5
        z = (u - na * nb / 2 - shift) / sigma
    return TestResult("Mann-Whitney U", _scalar(u), _scalar(_tail(z, alternative)), alternative)


def mann_whitney(a, b, alternative: Alternative = "greater", levels=None) -> TestResult:
    """Mann-Whitney U test of ordinal responses ``a`` against ``b`` (Hoyle §6.1, ratings).

    Responses are tallied over their ``levels`` (default: the sorted distinct values of both)
    and passed to :func:`mann_whitney_counts`; the statistic is :math:`U_a`.

    Parameters
    ----------
    a, b : array-like
        The two groups' ordinal responses (flattened).
    alternative : {"greater", "smaller"}, optional
        Whether a's responses tend to be higher (``greater``) or lower than b's.
    levels : array-like, optional
        The response scale, low to high (default: the distinct values seen).

    Returns
    -------
    TestResult
        ``statistic`` is :math:`U_a`.

    Raises
    ------
    InputError
        When a group is empty.

    Examples
    --------
    The same responses as :func:`mann_whitney_counts`' example, one per rating; equals
    ``scipy.stats.mannwhitneyu(a, b, method="asymptotic", alternative="greater")``.

    >>> from tealeaves.stats import mann_whitney
    >>> result = mann_whitney([3, 3, 2, 3, 1, 3, 2, 3], [1, 2, 1, 1, 3, 2, 1, 2])
    >>> float(result.statistic), round(result.pvalue, 4)
    (50.5, 0.0225)
    """
    a, b = (as_numbers(x, name, batched=True).ravel() for x, name in ((a, "a"), (b, "b")))
    if a.size == 0 or b.size == 0:
        raise InputError("mann_whitney needs at least one response in each group")
    levels = np.unique(np.concatenate([a, b])) if levels is None else as_numbers(levels, "levels", ndim=1)
    if not np.isin(np.concatenate([a, b]), levels).all():
        raise InputError(f"mann_whitney needs every response on the scale of levels {levels.tolist()}; some are not")
    count = lambda x: (x[:, None] == levels[None, :]).sum(axis=0)  # noqa: E731
    return mann_whitney_counts(count(a), count(b), alternative)
