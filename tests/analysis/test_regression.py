"""Logistic and ordered-probit regressions equal statsmodels and recover known coefficients."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.miscmodels.ordinal_model import OrderedModel

from tealeaves.analysis import regress
from tealeaves.errors import InputError


def test_logistic_equals_statsmodels_and_recovers_beta():
    rng = np.random.default_rng(12)
    x = rng.normal(size=4000)
    y = (rng.random(4000) < 1 / (1 + np.exp(-(0.3 + 2.0 * x)))).astype(float)
    fit = regress(y, x, "logistic")
    ref = sm.Logit(y, sm.add_constant(x)).fit(disp=0)
    assert fit.coef == pytest.approx(ref.params[1]) and fit.se == pytest.approx(ref.bse[1])
    assert fit.ci_low == pytest.approx(ref.conf_int()[1][0]) and fit.bic == pytest.approx(ref.bic)
    assert abs(fit.coef - 2.0) < 3 * fit.se


def test_ordered_probit_equals_statsmodels_and_recovers_beta():
    rng = np.random.default_rng(13)
    x = rng.normal(size=3000)
    latent = 1.5 * x + rng.normal(size=3000)
    y = np.digitize(latent, [-0.5, 0.7]) + 1.0  # ratings 1, 2, 3
    fit = regress(y, x, "ordered-probit")
    ref = OrderedModel(y, x[:, None], distr="probit").fit(disp=0, method="bfgs")
    assert fit.coef == pytest.approx(ref.params[0], rel=1e-6)
    assert abs(fit.coef - 1.5) < 3 * fit.se
    z = stats.norm.ppf(0.975)
    assert (fit.ci_high - fit.coef) / fit.se == pytest.approx(z, rel=1e-6)
    assert (fit.coef - fit.ci_low) / fit.se == pytest.approx(z, rel=1e-6)


def test_ordered_probit_standard_errors_and_intervals_over_replications():
    """Over R = 200 simulated studies (n = 300), the coefficient is unbiased, its spread equals the
    reported standard error and the 95% Wald interval covers the true beta 95% of the time.

    Tolerances are 4 Monte Carlo standard errors: the mean coefficient sd / sqrt(R); the ratio
    sd / mean(se), whose relative sampling error is about 1 / sqrt(2 (R - 1)) = 0.05; the
    coverage sqrt(0.95 * 0.05 / R) = 0.015. A wrong standard error (say the logit's, 1.7 times
    the probit's) or a wrong interval fails them.
    """
    coefs, ses, covered = [], [], []
    for replication in range(200):
        rng = np.random.default_rng(1000 + replication)
        x = rng.normal(size=300)
        y = np.digitize(1.5 * x + rng.normal(size=300), [-0.5, 0.7]) + 1.0
        fit = regress(y, x, "ordered-probit")
        coefs.append(fit.coef)
        ses.append(fit.se)
        covered.append(fit.ci_low < 1.5 < fit.ci_high)
    coefs, r = np.array(coefs), len(coefs)
    assert abs(coefs.mean() - 1.5) < 4 * coefs.std(ddof=1) / np.sqrt(r)
    assert abs(coefs.std(ddof=1) / np.mean(ses) - 1) < 4 / np.sqrt(2 * (r - 1))
    assert abs(np.mean(covered) - 0.95) < 4 * np.sqrt(0.95 * 0.05 / r)


def test_regression_refuses_bad_input():
    with pytest.raises(InputError, match="0/1"):
        regress([0, 1, 2], [0.1, 0.2, 0.3], "logistic")
    with pytest.raises(InputError, match="kind"):
        regress([0, 1, 1], [0.1, 0.2, 0.3], "ols")
    # one value a pair; unequal lengths raised NumPy's "operands could not be broadcast together"
    with pytest.raises(InputError, match=r"got 3 and 2 values$"):
        regress([0, 1, 1], [0.1, 0.2], "logistic")
    with pytest.raises(InputError, match=r"^y must be an array of numbers, got a list"):
        regress(["yes", "no", "yes"], [0.1, 0.2, 0.3], "logistic")
