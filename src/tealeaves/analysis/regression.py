"""Regressions of individual human judgments on an automated metric (Hoyle et al. 2021, A.6, Table 10).

Instead of correlating per-topic means, Hoyle et al. model every annotation: a logistic regression
for word intrusion (1 = intruder found),

.. math:: P(y = 1 \\mid x) = \\sigma(\\beta_0 + \\beta x),

and an ordered probit for ratings on the ordinal scale,

.. math:: P(y \\le j \\mid x) = \\Phi(\\tau_j - \\beta x),

both fitted by maximum likelihood with statsmodels (``Logit``; ``OrderedModel(distr="probit")``,
which has no intercept because the thresholds :math:`\\tau_j` absorb it). The reported
coefficient is :math:`\\beta` with its Wald 95% interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.errors import EmptyResultError, InputError, MissingDependencyError, as_numbers
from tealeaves.results import Result


@dataclass(frozen=True)
class RegressionResult(Result):
    """Coefficient of the metric with its standard error, p-value, interval and the model's BIC.

    Attributes
    ----------
    kind : str
        ``"logistic"`` or ``"ordered-probit"``.
    coef, se, pvalue : float
        :math:`\\beta`, its standard error and its Wald test's two-sided p-value.
    ci_low, ci_high : float
        The Wald interval of :math:`\\beta` (95% by default).
    bic : float
        The fitted model's Bayesian information criterion.
    n : int
        Annotations fitted.

    Examples
    --------
    >>> from tealeaves.analysis import regress
    >>> x = [0.05, 0.05, 0.05, 0.10, 0.10, 0.10, 0.15, 0.15, 0.15, 0.20, 0.20, 0.20]
    >>> found = [0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> regress(found, x, "logistic")
    RegressionResult(kind=logistic, coef=23.49, se=14.27, pvalue=p = 0.0998, ci_low=-4.484, ci_high=51.47, …)
    """

    kind: str
    coef: float
    se: float
    pvalue: float
    ci_low: float
    ci_high: float
    bic: float
    n: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.to_dict()])


def _statsmodels():
    try:
        import statsmodels.api as sm
        from statsmodels.miscmodels.ordinal_model import OrderedModel
    except ImportError as exc:  # pragma: no cover - statsmodels is a dependency
        raise MissingDependencyError("regressions need statsmodels: pip install statsmodels") from exc
    return sm, OrderedModel


def regress(y, x, kind: str, alpha: float = 0.05) -> RegressionResult:
    """Fit ``kind`` = ``"logistic"`` (0/1 answers) or ``"ordered-probit"`` (ordinal ratings) of ``y`` on ``x``.

    ``y`` and ``x`` have one entry per annotation (a topic's metric value repeated for each of
    its annotations). Rows with a missing value are dropped.

    Parameters
    ----------
    y : array-like
        One judgment per annotation: 0/1 (intruder found) for ``logistic``, the rating for
        ``ordered-probit``.
    x : array-like
        The metric value of the annotated topic, one per annotation.
    kind : {"logistic", "ordered-probit"}
        The model.
    alpha : float, optional
        The interval is :math:`1 - \\alpha`.

    Returns
    -------
    RegressionResult

    Raises
    ------
    EmptyResultError
        With fewer than three annotations, a constant metric, or a single distinct rating.
    InputError
        For an unknown ``kind``, or answers other than 0/1 for ``logistic``.

    Examples
    --------
    Twelve annotations of four topics whose coherence rises from 0.05 to 0.20: the higher a
    topic's coherence, the more often its intruder was found (1/3, 1/3, 2/3, 3/3) and the
    higher it was rated.

    >>> from tealeaves.analysis import regress
    >>> x = [0.05, 0.05, 0.05, 0.10, 0.10, 0.10, 0.15, 0.15, 0.15, 0.20, 0.20, 0.20]
    >>> found = [0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> result = regress(found, x, "logistic")
    >>> round(result.coef, 2), round(result.se, 2), round(result.pvalue, 4)
    (23.49, 14.27, 0.0998)
    >>> rating = [1, 1, 2, 1, 2, 2, 2, 3, 2, 3, 3, 3]
    >>> result = regress(rating, x, "ordered-probit")
    >>> round(result.coef, 2), round(result.pvalue, 4), result.n
    (33.86, 0.0126, 12)
    """
    sm, OrderedModel = _statsmodels()
    y, x = as_numbers(y, "y", ndim=1), as_numbers(x, "x", ndim=1)
    if len(y) != len(x):
        raise InputError(f"y and x must pair each annotation with its metric value, got {len(y)} and {len(x)} values")
    ok = ~(np.isnan(y) | np.isnan(x))
    y, x = y[ok], x[ok]
    if len(y) < 3 or np.ptp(x) == 0:
        raise EmptyResultError("a regression needs at least three annotations and a metric that varies")
    if kind == "logistic":
        if not np.isin(y, (0.0, 1.0)).all():
            raise InputError("logistic regression needs 0/1 answers (intruder found or not)")
        result = sm.Logit(y, sm.add_constant(x)).fit(disp=0)
        index = 1
    elif kind == "ordered-probit":
        if len(np.unique(y)) < 2:
            raise EmptyResultError("an ordered probit needs at least two distinct ratings")
        result = OrderedModel(y, x[:, None], distr="probit").fit(disp=0, method="bfgs")
        index = 0
    else:
        raise InputError(f"kind must be 'logistic' or 'ordered-probit', got {kind!r}")
    low, high = np.asarray(result.conf_int(alpha=alpha))[index]
    return RegressionResult(
        kind=kind,
        coef=float(np.asarray(result.params)[index]),
        se=float(np.asarray(result.bse)[index]),
        pvalue=float(np.asarray(result.pvalues)[index]),
        ci_low=float(low),
        ci_high=float(high),
        bic=float(result.bic),
        n=len(y),
    )
