"""Design and equivalence: the minimal detectable difference of a test, and the two one-sided tests (TOST)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from tealeaves.errors import InputError, as_numbers, check_each, is_level, is_real

POWER = 0.8


def _check_power(owner: str, power: float) -> None:
    """Refuse a power that is not a probability in (0, 1), naming the value."""
    check_each(owner, [(is_real(power) and 0 < power < 1, "power in (0, 1) (0.8)", power)])


def _quantile(q: float, df):
    """Student's t quantile on ``df`` degrees of freedom (NaN for NaN), or the normal's for ``df=None``."""
    return stats.norm.ppf(q) if df is None else stats.t.ppf(q, df)


def minimal_detectable_difference(se, df=np.inf, alpha: float = 0.05, power: float = POWER):
    """The smallest true difference a two-sided test at ``alpha`` detects with probability ``power``.

    .. math:: \\delta = (q_{1-\\alpha/2} + q_{\\text{power}})\\,\\mathrm{SE}

    with :math:`q` the quantiles of Student's t with ``df`` degrees of freedom (Cohen 1988,
    *Statistical Power Analysis*, ch. 2; the lower tail's rejections are left out, a difference
    of :math:`\\delta` being found there with negligible probability). Under Holm over
    :math:`m` comparisons, pass ``alpha / m``: the level the first step uses, so a difference
    this large is found whatever the other p-values are.

    Parameters
    ----------
    se : float or array-like
        The standard error of the difference.
    df : float, array-like or None, optional
        Degrees of freedom (default infinite: Student's t at infinite degrees of freedom, the
        normal); None for a test without any (a permutation test), which takes the normal's
        quantiles; NaN gives NaN.
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
        When ``alpha`` is outside (0, 0.5] or ``power`` outside (0, 1).

    Examples
    --------
    At the 5% level with 80% power, (1.96 + 0.8416) standard errors:

    >>> from tealeaves.stats import minimal_detectable_difference
    >>> round(minimal_detectable_difference(0.01), 4)
    0.028
    >>> round(minimal_detectable_difference(0.01, df=38), 4)
    0.0288
    """
    check_each("minimal_detectable_difference", [(is_level(alpha), "alpha, the two-sided level, in (0, 0.5]", alpha)])
    _check_power("minimal_detectable_difference", power)
    se = as_numbers(se, "se")
    if np.any(se < 0):
        raise InputError(f"minimal_detectable_difference needs standard errors >= 0, got {se[se < 0][0]!r}")
    delta = (_quantile(1 - alpha / 2, df) + _quantile(power, df)) * se
    return float(delta) if np.ndim(delta) == 0 else delta


def tost_pvalue(difference: float, se: float, df: float | None, margin: float) -> float:
    """Schuirmann's (1987) two one-sided tests of equivalence, :math:`|\\theta_A - \\theta_B| < \\epsilon`.

    .. math:: p = \\max\\{P(T \\ge (d + \\epsilon)/se),\\ P(T \\le (d - \\epsilon)/se)\\}

    on ``df`` degrees of freedom (Schuirmann 1987, "A comparison of the two one-sided tests
    procedure and the power approach for assessing the equivalence of average
    bioavailability", J. Pharmacokinet. Biopharm. 15, 657-680); below the level, the two are
    equivalent within the margin. Without any standard error, 0 when :math:`|d| < \\epsilon`
    and 1 otherwise; NaN (untestable, no verdict) for a NaN estimate or standard error. Equals ``statsmodels.stats.weightstats.ttost_ind`` for Welch's t.

    Parameters
    ----------
    difference : float
        The estimate :math:`d`.
    se : float
        Its standard error.
    df : float or None
        Degrees of freedom; None for the normal (a test without any).
    margin : float
        The equivalence margin :math:`\\epsilon`.

    Returns
    -------
    float

    Examples
    --------
    >>> from tealeaves.stats import tost_pvalue
    >>> round(tost_pvalue(0.01, 0.02, 38, 0.05), 4)
    0.0263
    """
    check_each(
        "tost_pvalue",
        [
            (is_real(difference), "a number for the difference", difference),
            (is_real(se) and not se < 0, "a standard error >= 0 (a number)", se),
            (df is None or is_real(df), "degrees of freedom, a number or None", df),
            (is_real(margin) and margin > 0, "a margin > 0", margin),
        ],
    )
    if np.isnan(se) or np.isnan(difference):
        return float("nan")  # untestable: no verdict of equivalence
    if not se > 0:
        return 0.0 if abs(difference) < margin else 1.0
    dist = stats.norm if df is None else stats.t(df)
    return float(max(dist.sf((difference + margin) / se), dist.cdf((difference - margin) / se)))


def detectable_difference(critical, se, df=np.inf, power: float = POWER, studentised: bool = True):
    """The smallest true difference a test with a resampled critical value detects with probability ``power``.

    .. math:: \\delta = (c + q_{\\text{power}})\\,\\mathrm{SE} \\quad\\text{(a studentised statistic)},
              \\qquad \\delta = c + q_{\\text{power}}\\,\\mathrm{SE} \\quad\\text{(a raw difference)},

    with :math:`c` the critical value the test actually uses (the quantile of its resampled null
    statistics at the level it rejects at, e.g. Westfall and Young's first step,
    :attr:`tealeaves.stats.StepDown.critical`) and :math:`q` Student's t quantile on ``df``
    degrees of freedom (the normal's for None or infinite): the statistic, shifted by
    :math:`\\delta / \\mathrm{SE}`, exceeds :math:`c` with probability ``power`` (Cohen 1988,
    ch. 2, with the test's own critical value in place of :math:`q_{1-\\alpha/2}`). The normal
    approximation's form, :func:`minimal_detectable_difference`, is the case
    :math:`c = q_{1-\\alpha/2}`.

    Parameters
    ----------
    critical : float or array-like
        The test's critical value: of :math:`|t|` for a studentised statistic, of the difference
        itself otherwise.
    se : float or array-like
        The difference's standard error.
    df : float, array-like or None, optional
        Degrees of freedom of the power quantile.
    power : float, optional
        The probability of detecting the difference.
    studentised : bool, optional
        Whether ``critical`` is on the scale of :math:`|t|` (True) or of the difference.

    Returns
    -------
    float or ndarray

    Examples
    --------
    A critical :math:`|t|` of 3.0 at 80% power on the normal: :math:`(3.0 + 0.8416) \\times 0.01`.

    >>> from tealeaves.stats import detectable_difference
    >>> round(detectable_difference(3.0, 0.01), 4), round(detectable_difference(0.03, 0.01, studentised=False), 4)
    (0.0384, 0.0384)
    """
    _check_power("detectable_difference", power)
    q = _quantile(power, None if df is None or not np.all(np.isfinite(df)) else df)
    se = as_numbers(se, "se")
    critical = as_numbers(critical, "critical")
    delta = (critical + q) * se if studentised else critical + q * se
    return float(delta) if np.ndim(delta) == 0 else delta
