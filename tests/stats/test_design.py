"""The minimal detectable difference at its power, and TOST against statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_ind

from tealeaves.errors import InputError
from tealeaves.stats import minimal_detectable_difference, tost_pvalue, welch_test


def test_minimal_detectable_difference_is_the_power_point():
    se, df = 0.02, 38
    mdd = minimal_detectable_difference(se, df, 0.05)
    power = stats.t.sf(stats.t.ppf(0.975, df) - mdd / se, df)  # the upper tail, the lower is negligible
    assert power == pytest.approx(0.8, abs=1e-9)
    assert minimal_detectable_difference(se, df, 0.01, 0.9) == pytest.approx(
        (stats.t.ppf(0.995, df) + stats.t.ppf(0.9, df)) * se, rel=1e-12
    )
    # without degrees of freedom (a permutation test): the normal's quantiles; at infinite ones, t's
    normal = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * se
    assert minimal_detectable_difference(se, None) == normal
    assert minimal_detectable_difference(se) == pytest.approx(normal, rel=1e-14)
    assert np.isnan(minimal_detectable_difference(se, np.nan))
    batched = minimal_detectable_difference(np.array([0.01, 0.02]), np.array([10.0, 20.0]))
    assert batched.shape == (2,) and batched[1] == minimal_detectable_difference(0.02, 20.0)
    with pytest.raises(InputError):
        minimal_detectable_difference(se, df, alpha=1.5)


def test_tost_is_statsmodels_two_one_sided_tests():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.10, 0.05, 20), rng.normal(0.11, 0.06, 20)
    c = welch_test(a, b)
    p, _, _ = ttost_ind(a, b, -0.05, 0.05, usevar="unequal")
    assert tost_pvalue(c.difference, c.se, c.df, 0.05) == pytest.approx(p, rel=1e-10)
    z = max(stats.norm.sf((c.difference + 0.05) / c.se), stats.norm.cdf((c.difference - 0.05) / c.se))
    assert tost_pvalue(c.difference, c.se, None, 0.05) == z
    assert tost_pvalue(0.01, 0.0, 30, 0.05) == 0.0 and tost_pvalue(0.1, 0.0, 30, 0.05) == 1.0
