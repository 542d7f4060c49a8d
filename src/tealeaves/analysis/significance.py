"""Significance tests for comparing two models: Hoyle et al.'s one-tailed tests, Welch's t, Holm.

:func:`welch_test`, :func:`holm` and :func:`minimal_detectable_difference` are what the model
comparisons of :mod:`tealeaves.analysis.comparison` report (two-sided, the topic as the unit).
The rest reproduce Hoyle et al. 2021 (§6.1, Fig. 2).

Hoyle et al. compare models pairwise with one-tailed tests in both directions: a two-proportion
z-test for word intrusion (correct / not correct), the Mann-Whitney U test for ratings and
Student's t-test for automated metrics. The functions here compute the same statistics as
``statsmodels.stats.proportion.proportions_ztest``, ``scipy.stats.mannwhitneyu`` (asymptotic
method) and ``scipy.stats.ttest_ind`` (pooled variance), but vectorised over leading axes, so the
resampling procedures (false discovery rates, power simulations) run thousands of tests at once.

Every test takes ``value``, the difference under the null hypothesis, so the same functions give
the non-inferiority / non-superiority tests of Hoyle A.5.1 (``H0: mean_a - mean_b >= value``
against ``alternative="smaller"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from tealeaves.errors import InputError
from tealeaves.results import Result

Alternative = Literal["greater", "smaller"]


@dataclass(frozen=True)
class TestResult(Result):
    """A test statistic and its one-tailed p-value (arrays when the inputs were batched).

    Attributes
    ----------
    test : str
        The test's name (``"two-proportion z"``, ``"Student t"``, ``"Mann-Whitney U"``,
        ``"Welch t"``).
    alternative : str
        ``"greater"`` or ``"smaller"`` (one-tailed), or ``"two-sided"``.
    statistic : float or ndarray
        z, t or :math:`U_a`; an array of the leading shape when the inputs were batched.
    pvalue : float or ndarray
        The p-value, of the same shape as ``statistic``.

    Examples
    --------
    >>> from tealeaves.analysis import t_test
    >>> result = t_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12])
    >>> result
    TestResult(test=Student t, alternative=greater, statistic=2.6, pvalue=p = 0.0203)
    >>> result.to_frame()
       statistic    pvalue       test alternative
    0        2.6  0.020331  Student t     greater
    """

    test: str
    alternative: str
    statistic: np.ndarray | float
    pvalue: np.ndarray | float

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"statistic": np.atleast_1d(self.statistic), "pvalue": np.atleast_1d(self.pvalue)}).assign(
            test=self.test, alternative=self.alternative
        )


def _tail(z: np.ndarray, alternative: Alternative, dist=stats.norm, **kw) -> np.ndarray:
    if alternative == "greater":
        return dist.sf(z, **kw)
    if alternative == "smaller":
        return dist.cdf(z, **kw)
    raise InputError(f"alternative must be 'greater' or 'smaller', got {alternative!r}")


def _scalar(x: np.ndarray) -> np.ndarray | float:
    return float(x) if np.ndim(x) == 0 else x


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
        ``statistic`` is z.

    Raises
    ------
    InputError
        When a group has no observation.

    Examples
    --------
    Model a's intruders were found 30 times in 40, model b's 20 times in 40: pooled
    :math:`\\bar p = 0.625`, :math:`z = 0.25 / \\sqrt{0.625 \\cdot 0.375 \\cdot 0.05} = 2.309`.

    >>> from tealeaves.analysis import proportion_test
    >>> result = proportion_test(30, 40, 20, 40)
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.3094, 0.0105)
    """
    ca, na, cb, nb = (np.asarray(v, dtype=np.float64) for v in (count_a, nobs_a, count_b, nobs_b))
    if np.any(na <= 0) or np.any(nb <= 0):
        raise InputError("proportion_test needs at least one observation in each group")
    pooled = (ca + cb) / (na + nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (ca / na - cb / nb - value) / np.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    return TestResult("two-proportion z", alternative, _scalar(z), _scalar(_tail(z, alternative)))


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
        ``statistic`` is t.

    Raises
    ------
    InputError
        When a group has fewer than two values.

    Examples
    --------
    Means 0.13 and 0.0975, pooled variance 0.0003125, so
    :math:`t = 0.0325 / \\sqrt{0.000313 \\cdot 0.5} = 2.6` with 6 degrees of freedom.

    >>> from tealeaves.analysis import t_test
    >>> result = t_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12])
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.6, 0.0203)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
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


def t_test_moments(mean_a, var_a, n_a, mean_b, var_b, n_b, alternative: Alternative = "greater", value: float = 0.0):
    """:func:`t_test` from each group's mean, unbiased variance and size (arrays broadcast)."""
    n_a = np.asarray(n_a, dtype=np.float64)
    n_b = np.asarray(n_b, dtype=np.float64)
    if np.any(n_a < 2) or np.any(n_b < 2):
        raise InputError("t_test needs at least two values per group")
    df = n_a + n_b - 2
    pooled = ((n_a - 1) * np.asarray(var_a) + (n_b - 1) * np.asarray(var_b)) / df
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.asarray(mean_a) - np.asarray(mean_b) - value) / np.sqrt(pooled * (1 / n_a + 1 / n_b))
    return TestResult("Student t", alternative, _scalar(t), _scalar(_tail(t, alternative, stats.t, df=df)))


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

    >>> from tealeaves.analysis import mann_whitney_counts
    >>> result = mann_whitney_counts([1, 2, 5], [4, 3, 1])
    >>> float(result.statistic), round(result.pvalue, 4)
    (50.5, 0.0225)
    """
    a = np.asarray(counts_a, dtype=np.float64)
    b = np.asarray(counts_b, dtype=np.float64)
    na, nb = a.sum(axis=-1), b.sum(axis=-1)
    below_b = np.cumsum(b, axis=-1) - b
    u = (a * (below_b + b / 2)).sum(axis=-1)
    t = a + b
    n = na + nb
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = np.sqrt(na * nb / 12 * ((n + 1) - (t**3 - t).sum(axis=-1) / (n * (n - 1))))
        shift = 0.5 if alternative == "greater" else -0.5
        z = (u - na * nb / 2 - shift) / sigma
    return TestResult("Mann-Whitney U", alternative, _scalar(u), _scalar(_tail(z, alternative)))


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

    >>> from tealeaves.analysis import mann_whitney
    >>> result = mann_whitney([3, 3, 2, 3, 1, 3, 2, 3], [1, 2, 1, 1, 3, 2, 1, 2])
    >>> float(result.statistic), round(result.pvalue, 4)
    (50.5, 0.0225)
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.size == 0 or b.size == 0:
        raise InputError("mann_whitney needs at least one response in each group")
    levels = np.unique(np.concatenate([a, b])) if levels is None else np.asarray(levels, dtype=np.float64)
    count = lambda x: (x[:, None] == levels[None, :]).sum(axis=0)  # noqa: E731
    return mann_whitney_counts(count(a), count(b), alternative)


def welch_test(a, b) -> TestResult:
    """Welch's two-sample t-test, two-sided, along the last axis (Welch 1947).

    .. math:: t = \\frac{\\bar a - \\bar b}{\\sqrt{s_a^2/n_a + s_b^2/n_b}},\\quad
              \\nu = \\frac{(s_a^2/n_a + s_b^2/n_b)^2}{\\frac{(s_a^2/n_a)^2}{n_a-1} + \\frac{(s_b^2/n_b)^2}{n_b-1}}

    with the two-sided p-value :math:`2 P(T_\\nu > |t|)`. Equals ``scipy.stats.ttest_ind(a, b,
    equal_var=False)``. The unit is whatever ``a`` and ``b`` hold one value of (the topics of two
    models, when comparing models on per-topic scores). Two groups without any variation have
    no standard error: their p-value is NaN (untestable), never 0.

    Parameters
    ----------
    a, b : array-like of shape (..., n_a) and (..., n_b)
        The two groups' values along the last axis (at least two each); leading axes
        broadcast.

    Returns
    -------
    TestResult
        ``statistic`` is t, ``alternative`` is ``"two-sided"``.

    Raises
    ------
    InputError
        When a group has fewer than two values.

    Examples
    --------
    >>> from tealeaves.analysis import welch_test
    >>> result = welch_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12, 0.02])
    >>> round(result.statistic, 4), round(result.pvalue, 4)
    (2.5044, 0.0462)
    >>> welch_test([0.1, 0.1], [0.2, 0.2]).pvalue  # no variation: untestable
    nan
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    se, df = welch_se(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, (a.mean(axis=-1) - b.mean(axis=-1)) / se, np.nan)
    return TestResult("Welch t", "two-sided", _scalar(t), _scalar(2 * stats.t.sf(np.abs(t), df)))


def welch_se(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The standard error :math:`\\sqrt{s_a^2/n_a + s_b^2/n_b}` of :math:`\\bar a - \\bar b` and Welch's
    degrees of freedom :math:`\\nu` (:func:`welch_test`), along the last axis; :math:`\\nu` is NaN where
    the standard error is 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = a.shape[-1], b.shape[-1]
    if na < 2 or nb < 2:
        raise InputError("Welch's test needs at least two values per group")
    va, vb = a.var(axis=-1, ddof=1) / na, b.var(axis=-1, ddof=1) / nb
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    return np.sqrt(va + vb), df


def holm(pvalues) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of one family: with :math:`p_{(1)} \\le \\dots \\le p_{(m)}`,
    :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`. NaN p-values (untestable
    comparisons) stay NaN and do not count in :math:`m`. Equals
    ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]`` on the finite values.

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

    >>> from tealeaves.analysis import holm
    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled) if m else scaled
    return out


def minimal_detectable_difference(se, df=np.inf, alpha: float = 0.05, power: float = 0.8) -> np.ndarray | float:
    """The smallest true difference a two-sided test at ``alpha`` detects with probability ``power``.

    .. math:: \\delta = (q_{1-\\alpha/2} + q_{\\text{power}})\\,\\mathrm{SE}

    with :math:`q` the quantiles of Student's t with ``df`` degrees of freedom (the normal when
    infinite). Under Holm over :math:`m` comparisons, pass ``alpha / m``: the level the first
    step uses, so a difference this large is found whatever the other p-values are.

    Parameters
    ----------
    se : float or array-like
        The standard error of the difference.
    df : float or array-like, optional
        Degrees of freedom (default infinite: the normal).
    alpha : float, optional
        The two-sided level.
    power : float, optional
        The probability of detecting the difference.

    Returns
    -------
    float or ndarray
        :math:`\\delta`, of the shape of ``se``.

    Raises
    ------
    InputError
        When ``alpha`` or ``power`` is outside (0, 1).

    Examples
    --------
    At the 5% level with 80% power, (1.96 + 0.8416) standard errors:

    >>> from tealeaves.analysis import minimal_detectable_difference
    >>> round(minimal_detectable_difference(0.01), 4)
    0.028
    >>> round(minimal_detectable_difference(0.01, df=38), 4)
    0.0288
    """
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise InputError("alpha and power must lie in (0, 1)")
    se = np.asarray(se, dtype=np.float64)
    return _scalar((stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * se)
