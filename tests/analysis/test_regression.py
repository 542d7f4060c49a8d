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
    assert fit.ci_low < 1.5 < fit.ci_high or abs(fit.coef - 1.5) < 3 * fit.se
    assert stats.norm.ppf(0.975) == pytest.approx((fit.ci_high - fit.coef) / fit.se, rel=1e-6)


def test_regression_refuses_bad_input():
    with pytest.raises(InputError, match="0/1"):
        regress([0, 1, 2], [0.1, 0.2, 0.3], "logistic")
    with pytest.raises(InputError, match="kind"):
        regress([0, 1, 1], [0.1, 0.2, 0.3], "ols")
