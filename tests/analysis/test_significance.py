"""Every test statistic equals scipy / statsmodels called directly on the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest
from statsmodels.stats.weightstats import ttest_ind as sm_ttest_ind

from tealeaves.analysis.significance import (
    mann_whitney,
    mann_whitney_counts,
    proportion_test,
    t_test,
    t_test_moments,
)
from tealeaves.errors import InputError

SM_ALT = {"greater": "larger", "smaller": "smaller"}
SP_ALT = {"greater": "greater", "smaller": "less"}


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
@pytest.mark.parametrize("value", [0.0, 0.05, -0.03])
def test_proportion_test_equals_statsmodels(alternative, value):
    rng = np.random.default_rng(1)
    for _ in range(20):
        na, nb = rng.integers(20, 2000, size=2)
        ca, cb = rng.integers(1, na), rng.integers(1, nb)
        ours = proportion_test(ca, na, cb, nb, alternative, value)
        z, p = proportions_ztest([ca, cb], [na, nb], value=value, alternative=SM_ALT[alternative])
        assert ours.statistic == pytest.approx(z, rel=1e-12)
        assert ours.pvalue == pytest.approx(p, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
def test_t_test_equals_scipy_and_statsmodels(alternative):
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.1, 1, size=(30, 50)), rng.normal(0, 1.3, size=(30, 45))
    ours = t_test(a, b, alternative)
    for i in range(30):
        ref = stats.ttest_ind(a[i], b[i], alternative=SP_ALT[alternative])
        assert ours.statistic[i] == pytest.approx(ref.statistic, rel=1e-12)
        assert ours.pvalue[i] == pytest.approx(ref.pvalue, rel=1e-10)
    shifted = t_test(a[0], b[0], alternative, value=0.11)
    t, p, _ = sm_ttest_ind(a[0], b[0], value=0.11, alternative=SM_ALT[alternative])
    assert shifted.statistic == pytest.approx(t, rel=1e-12) and shifted.pvalue == pytest.approx(p, rel=1e-10)


def test_t_test_from_moments_equals_t_test():
    rng = np.random.default_rng(3)
    a, b = rng.integers(1, 4, 120).astype(float), rng.integers(1, 4, 90).astype(float)
    direct = t_test(a, b, "smaller", 0.11)
    moments = t_test_moments(a.mean(), a.var(ddof=1), a.size, b.mean(), b.var(ddof=1), b.size, "smaller", 0.11)
    assert moments.statistic == pytest.approx(direct.statistic) and moments.pvalue == pytest.approx(direct.pvalue)


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
def test_mann_whitney_equals_scipy_with_ties(alternative):
    rng = np.random.default_rng(4)
    for _ in range(20):
        a = rng.choice([1, 2, 3], size=rng.integers(5, 400), p=[0.2, 0.3, 0.5])
        b = rng.choice([1, 2, 3], size=rng.integers(5, 400), p=[0.3, 0.4, 0.3])
        ours = mann_whitney(a, b, alternative)
        ref = stats.mannwhitneyu(a, b, alternative=SP_ALT[alternative], method="asymptotic")
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_mann_whitney_continuous_values_and_counts_form():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=60), rng.normal(0.3, size=70)
    ref = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic")
    assert mann_whitney(a, b).pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    counts = mann_whitney_counts([[3, 5, 2], [0, 1, 9]], [[4, 4, 2], [5, 5, 0]])
    for i, (ca, cb) in enumerate(([[3, 5, 2], [4, 4, 2]], [[0, 1, 9], [5, 5, 0]])):
        x, y = np.repeat([1, 2, 3], ca), np.repeat([1, 2, 3], cb)
        assert counts.pvalue[i] == pytest.approx(
            stats.mannwhitneyu(x, y, alternative="greater", method="asymptotic").pvalue
        )


def test_bad_inputs_are_refused():
    with pytest.raises(InputError, match="alternative"):
        proportion_test(1, 10, 2, 10, "two-sided")
    with pytest.raises(InputError, match="at least two"):
        t_test([1.0], [1.0, 2.0])
    with pytest.raises(InputError, match="at least one"):
        proportion_test(0, 0, 1, 10)
